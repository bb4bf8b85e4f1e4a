import Foundation

/// Starts the `swift` commands a shard needs: with captured output for the listing, with the
/// terminal's output for the test runs.
enum ChildProcess {
  struct Result {
    var status: Int32
    var output: String
    var error: String
  }

  /// Runs a command, reading both pipes before waiting so a chatty child cannot block.
  static func capture(_ arguments: [String], in folder: URL) throws -> Result {
    let process = makeProcess(arguments, in: folder, environment: nil)
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    nonisolated(unsafe) var errorData = Data()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      errorData = error.fileHandleForReading.readDataToEndOfFile()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
      error: String(decoding: errorData, as: UTF8.self))
  }

  /// Runs a command whose output goes where this process's goes; returns its status.
  static func run(_ arguments: [String], in folder: URL, environment: [String: String]) throws
    -> Int32
  {
    let process = makeProcess(arguments, in: folder, environment: environment)
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  private static func makeProcess(
    _ arguments: [String], in folder: URL, environment: [String: String]?
  ) -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.currentDirectoryURL = folder
    process.standardInput = FileHandle.nullDevice
    if let environment {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    return process
  }
}
