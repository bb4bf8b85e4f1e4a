import Foundation

/// Runs the baselines' programs (ImageMagick, node) the one safe way.
enum ChildProcess {
  struct Run {
    var status: Int32
    var standardOutput: String
    var standardError: String
  }

  /// Runs a program with an argument array (never a shell string), reading both pipes to the
  /// end before waiting so a chatty child cannot fill a pipe and deadlock.
  static func run(_ executable: URL, _ arguments: [String]) throws -> Run {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let group = DispatchGroup()
    nonisolated(unsafe) var outputData = Data()
    group.enter()
    DispatchQueue.global().async {
      outputData = output.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus,
      standardOutput: String(decoding: outputData, as: UTF8.self),
      standardError: String(decoding: errorData, as: UTF8.self))
  }
}
