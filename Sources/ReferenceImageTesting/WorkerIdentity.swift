import Foundation
import ReferenceContracts

extension ArchiveManifest.Worker {
  /// The CI variables recorded in manifests, when set: they tell shards apart.
  static let ciVariables = [
    "CI", "GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT", "GITHUB_JOB", "RUNNER_NAME", "CI_NODE_INDEX",
    "CI_NODE_TOTAL", "CI_JOB_ID", "BUILDKITE_JOB_ID", "BUILDKITE_PARALLEL_JOB", "CIRCLE_NODE_INDEX",
    "SHARD", "SHARD_INDEX", "SHARD_COUNT", "IMAGE_GENERATION_SHARD",
  ]

  /// This process.
  static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> Self {
    var ci: [String: String] = [:]
    for key in ciVariables { if let value = environment[key] { ci[key] = value } }
    return Self(
      host: ProcessInfo.processInfo.hostName,
      pid: ProcessInfo.processInfo.processIdentifier,
      os: ProcessInfo.processInfo.operatingSystemVersionString,
      swiftVersion: swiftCompilerVersion, ci: ci)
  }

  static var swiftCompilerVersion: String {
    #if compiler(>=6.4)
      return ">=6.4"
    #elseif compiler(>=6.3)
      return "6.3"
    #elseif compiler(>=6.2)
      return "6.2"
    #elseif compiler(>=6.1)
      return "6.1"
    #else
      return "6.0"
    #endif
  }
}

/// The version of this library, written into manifests.
public let referenceImagesVersion = ToolVersion.name
