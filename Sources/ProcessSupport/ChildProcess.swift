import Foundation

/// Runs another program the one safe way, for the tools, the benchmarks and the tests alike:
/// an argument array (never a shell string), no standard input, and, when its output is
/// captured, both pipes read to the end before waiting, so a chatty child cannot fill a pipe
/// and deadlock. In a program that installed `Interruption`, each child is interrupted with it,
/// and none starts once it is interrupted (`Interruption.Interrupted` is thrown).
public enum ChildProcess {
  /// What a captured run printed, and how it ended.
  public struct Output: Sendable {
    /// The exit status (or the signal's number, for a child killed by one).
    public var status: Int32
    /// Standard output.
    public var output: String
    /// Standard error.
    public var error: String
  }

  /// Runs a program and captures both streams.
  /// - Parameters:
  ///   - executable: The program.
  ///   - arguments: Its arguments.
  ///   - folder: The working folder; this process's unless given.
  ///   - environment: The whole environment; this process's unless given.
  ///   - timeout: Seconds after which the child is killed; none unless given.
  /// - Throws: When the program cannot be started.
  public static func capture(
    _ executable: URL, _ arguments: [String], in folder: URL? = nil,
    environment: [String: String]? = nil, timeout: TimeInterval? = nil
  ) throws -> Output {
    let process = makeProcess(executable, arguments, in: folder, environment: environment)
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try Interruption.start(process)
    defer { Interruption.ended(process) }
    let watchdog = timeout.map { timeout in
      let item = DispatchWorkItem { [process] in
        guard process.isRunning else { return }
        FileHandle.standardError.write(
          Data("killing \(executable.path) \(arguments) after \(timeout) s\n".utf8))
        kill(process.processIdentifier, SIGKILL)
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: item)
      return item
    }
    defer { watchdog?.cancel() }
    nonisolated(unsafe) var errorData = Data()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      errorData = error.fileHandleForReading.readDataToEndOfFile()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Output(
      status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
      error: String(decoding: errorData, as: UTF8.self))
  }

  /// Runs a program whose output goes where this process's goes.
  /// - Returns: Its exit status.
  /// - Throws: When the program cannot be started.
  public static func run(
    _ executable: URL, _ arguments: [String], in folder: URL? = nil,
    environment: [String: String]? = nil
  ) throws -> Int32 {
    let process = makeProcess(executable, arguments, in: folder, environment: environment)
    try Interruption.start(process)
    process.waitUntilExit()
    Interruption.ended(process)
    return process.terminationStatus
  }

  private static func makeProcess(
    _ executable: URL, _ arguments: [String], in folder: URL?, environment: [String: String]?
  ) -> Process {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    if let folder { process.currentDirectoryURL = folder }
    if let environment { process.environment = environment }
    return process
  }
}
