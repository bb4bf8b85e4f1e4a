// This file imports only Foundation on purpose: the regenerate-references plugin, which cannot
// import the package's libraries, compiles it too, through a symbolic link in its folder.
import Foundation

/// Ctrl-C for a program that runs others: once `install` has run, SIGINT, SIGTERM or SIGHUP (or
/// the parent's exit, when watched) interrupt every child started with `start` with SIGINT, so
/// that each stops its own children (`swift test` stops its test processes; `reference-shards`
/// stops its `swift test`), and `start` refuses to start another. After `grace` seconds a child
/// still running is killed, with its process group and, on Linux, every process below it.
///
/// Why this is needed: Foundation's `Process` starts every child in a process group of its own
/// (on Linux), and so do `swift package` and `swift test` with theirs, so a terminal's Ctrl-C
/// reaches `swift package` alone; it passes SIGINT on to the plugin, and nothing further
/// happens unless each program in the chain passes it on too.
///
/// The signals get a real handler, not SIG_IGN: an ignored signal stays ignored in every child
/// (`exec` keeps it), while a handled one returns to its default there.
public enum Interruption {
  /// Thrown by `start` once this process is interrupted: nothing more starts.
  public struct Interrupted: Error, CustomStringConvertible {
    /// The signal that interrupted this process (SIGHUP when its parent exited).
    public var signal: Int32
    public var description: String { "interrupted by \(Interruption.name(of: signal))" }
  }

  /// Seconds a child gets to stop after SIGINT before it, its process group and (on Linux) every
  /// process below it are killed: `install` sets it. `swift test` most often stops its test
  /// processes within a second, but not always.
  nonisolated(unsafe) private static var grace: TimeInterval = 5

  private static let lock = NSLock()
  nonisolated(unsafe) private static var installed = false
  nonisolated(unsafe) private static var received: Int32?
  nonisolated(unsafe) private static var children: [Int32: Process] = [:]
  /// The pipe the signal handler writes the signal's number to (read end, write end).
  nonisolated(unsafe) private static var pipeEnds: (read: Int32, write: Int32) = (-1, -1)

  /// The signal that interrupted this process, or nil.
  public static var signal: Int32? {
    lock.lock()
    defer { lock.unlock() }
    return received
  }

  /// Starts listening for SIGINT, SIGTERM and SIGHUP, and, when `parent` is given, for that
  /// process to stop being this one's parent (it exited: this process would otherwise run on
  /// unseen, holding SwiftPM's lock). Calling it again does nothing.
  /// - Parameters:
  ///   - parent: The process id of the parent to watch (checked twice a second).
  ///   - grace: Seconds a child gets to stop after SIGINT before it and every process below it
  ///     are killed.
  public static func install(watchingParent parent: Int32? = nil, grace: TimeInterval = 5) {
    lock.lock()
    defer { lock.unlock() }
    guard !installed else { return }
    installed = true
    self.grace = grace
    // Delivered to this thread at least, even if whoever started this process blocked them.
    var signals = sigset_t()
    sigemptyset(&signals)
    for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, number) }
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
    pipeEnds = (ends[0], ends[1])
    for number in [SIGINT, SIGTERM, SIGHUP] { handleSignal(number) }
    let read = ends[0]
    let watcher = Thread { watch(read: read, parent: parent) }
    watcher.name = "Interruption"
    watcher.start()
  }

  /// Starts `process`, unless this process is interrupted, and interrupts it with the others
  /// when it is.
  /// - Throws: `Interrupted` (the process is not started), or what `Process.run` throws.
  public static func start(_ process: Process) throws {
    lock.lock()
    defer { lock.unlock() }
    if let received { throw Interrupted(signal: received) }
    // A child inherits the signal mask of the thread that starts it, and Foundation's
    // `Process` keeps it: started from a Dispatch or Swift concurrency thread (the plugin's),
    // which blocks SIGINT, SIGTERM and SIGHUP, the child would never see them, nor would its
    // own children. The child starts with no signal blocked instead.
    var empty = sigset_t()
    var previous = sigset_t()
    sigemptyset(&empty)
    pthread_sigmask(SIG_SETMASK, &empty, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    try process.run()
    children[process.processIdentifier] = process
  }

  /// Forgets a process started with `start` once it has ended.
  public static func ended(_ process: Process) {
    lock.lock()
    defer { lock.unlock() }
    children[process.processIdentifier] = nil
  }

  /// Runs `process` to its end with `start`.
  /// - Returns: Its termination status.
  /// - Throws: `Interrupted` when this process was interrupted before or while it ran.
  public static func run(_ process: Process) throws -> Int32 {
    try start(process)
    process.waitUntilExit()
    ended(process)
    if let signal { throw Interrupted(signal: signal) }
    return process.terminationStatus
  }

  /// "SIGINT" for 2.
  public static func name(of signal: Int32) -> String {
    switch signal {
    case SIGINT: "SIGINT (Ctrl-C)"
    case SIGTERM: "SIGTERM"
    case SIGHUP: "SIGHUP"
    default: "signal \(signal)"
    }
  }

  /// The exit status of a program that stops on `signal`, as shells report it: 128 + number.
  public static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }

  /// The pipe's write end, for the signal handler.
  fileprivate static var signalPipe: Int32 { pipeEnds.write }

  private static func watch(read end: Int32, parent: Int32?) {
    var entry = pollfd(fd: end, events: Int16(POLLIN), revents: 0)
    while true {
      let ready = poll(&entry, 1, 500)
      if ready > 0 {
        var byte: UInt8 = 0
        if read(end, &byte, 1) == 1 { interrupt(Int32(byte)) }
      } else if let parent, getppid() != parent {
        interrupt(SIGHUP)
      }
    }
  }

  /// Records the first signal and passes SIGINT on to every running child; later signals
  /// change nothing (a second SIGINT would stop `swift test` before it stops its test
  /// processes).
  private static func interrupt(_ signal: Int32) {
    lock.lock()
    defer { lock.unlock() }
    guard received == nil else { return }
    received = signal
    for pid in children.keys { kill(pid, SIGINT) }
    DispatchQueue.global().asyncAfter(deadline: .now() + grace) {
      lock.lock()
      defer { lock.unlock() }
      for (pid, process) in children where process.isRunning {
        // Its descendants first: they are in process groups of their own (`swift test` starts
        // each test process in one), and once it is gone they can no longer be found.
        for descendant in descendants(of: pid).reversed() { kill(descendant, SIGKILL) }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
      }
    }
  }

  /// The processes below `pid`, parents before their children: read from `/proc` on Linux;
  /// none elsewhere (untested there), where only the child and its process group are killed.
  static func descendants(of pid: Int32) -> [Int32] {
    #if os(Linux)
      var children: [Int32: [Int32]] = [:]
      let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      for name in names {
        guard let process = Int32(name),
          let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
          // "pid (command) state ppid …": the command may hold spaces and parentheses.
          let close = stat.range(of: ")", options: .backwards)
        else { continue }
        let fields = stat[close.upperBound...].split(separator: " ")
        guard fields.count > 1, let parent = Int32(fields[1]) else { continue }
        children[parent, default: []].append(process)
      }
      var found: [Int32] = []
      var queue = [pid]
      while let next = queue.first {
        queue.removeFirst()
        let below = children[next] ?? []
        found += below
        queue += below
      }
      return found
    #else
      return []
    #endif
  }
}

/// Gives `number` the handler that writes it to `Interruption`'s pipe (outside the enum, whose
/// `signal` property would hide the C function).
private func handleSignal(_ number: Int32) {
  _ = signal(number) { number in
    // Only async-signal-safe calls here: one write to the pipe.
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(Interruption.signalPipe, &byte, 1)
  }
}
