import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// A server a test starts on the loopback interface (nginx, the fault server, moto), on a free
/// port, stopped when the test ends. A tool that is missing fails the test naming the fix:
/// `Scripts/test` installs every one, and CI must not pass on tests that never ran.
final class LoopbackServer {
  let port: Int
  let folder: URL
  private let process: Process

  /// The package root this test bundle was built from.
  static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("__Fixtures__")

  struct Missing: Error, CustomStringConvertible {
    var description: String
  }

  /// The dev-tools venv's Python (boto3, moto): `Scripts/install-dependencies --python-tools`.
  static func venvPython() throws -> String {
    let python = checkout.appendingPathComponent(".build/dev-tools/venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: python) else {
      throw Missing(
        description: "\(python) is missing: run Scripts/install-dependencies --python-tools "
          + "(Scripts/test does) to install moto and boto3")
    }
    return python
  }

  /// Starts `executable` with the arguments `arguments(port)` and waits until the port accepts
  /// connections.
  init(
    _ test: XCTestCase, executable: String, environment: [String: String]? = nil,
    startup: TimeInterval = 30, arguments: (Int, URL) throws -> [String]
  ) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "refimg-server-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    self.folder = folder
    port = try Self.freePort()
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = try arguments(port, folder)
    if let environment { process.environment = environment }
    let log = folder.appendingPathComponent("server.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    process.standardOutput = handle
    process.standardError = handle
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let process = process
    test.addTeardownBlock {
      if process.isRunning {
        process.terminate()
        process.waitUntilExit()
      }
      try? FileManager.default.removeItem(at: folder)
    }
    let deadline = Date().addingTimeInterval(startup)
    while !Self.accepts(port) {
      guard process.isRunning else {
        throw Missing(
          description: "\(executable) stopped at start: "
            + ((try? String(contentsOf: log, encoding: .utf8)) ?? ""))
      }
      guard Date() < deadline else {
        throw Missing(description: "\(executable) did not listen on port \(port) in \(startup) s")
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
  }

  /// A port nothing listens on now (the kernel's choice for a socket bound to port 0).
  static func freePort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw Missing(description: "socket() failed") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
      }
    }
    guard bound else { throw Missing(description: "bind() to a free port failed") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  private static func accepts(_ port: Int) -> Bool {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { return false }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// nginx from Debian (`nginx-light`) with its WebDAV module, and the dav-ext module for
  /// PROPFIND: `/objects/` open to everyone, `/private/` writable only with Basic
  /// credentials (`writer`, `the-password`).
  static func nginx(_ test: XCTestCase) throws -> LoopbackServer {
    let nginx = "/usr/sbin/nginx"
    let davExt = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so"
    guard FileManager.default.isExecutableFile(atPath: nginx) else {
      throw Missing(
        description: "\(nginx) is not installed: run apt-get install nginx-light (Scripts/test "
          + "installs it)")
    }
    guard FileManager.default.fileExists(atPath: davExt) else {
      throw Missing(
        description: "\(davExt) is not installed: run apt-get install "
          + "libnginx-mod-http-dav-ext (Scripts/test installs it)")
    }
    return try LoopbackServer(test, executable: nginx) { port, folder in
      for sub in ["root/objects", "root/private", "temp"] {
        try FileManager.default.createDirectory(
          at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
      }
      try "writer:{PLAIN}the-password\n".write(
        to: folder.appendingPathComponent("htpasswd"), atomically: true, encoding: .utf8)
      let dir = folder.path
      let dav = """
        dav_methods PUT DELETE;
              dav_ext_methods PROPFIND OPTIONS;
              create_full_put_path on;
              dav_access user:rw group:r all:r;
        """
      let configuration = """
        daemon off;
        master_process off;
        pid \(dir)/nginx.pid;
        error_log \(dir)/error.log info;
        load_module \(davExt);
        events { worker_connections 64; }
        http {
          access_log \(dir)/access.log;
          client_body_temp_path \(dir)/temp/body;
          proxy_temp_path \(dir)/temp/proxy;
          fastcgi_temp_path \(dir)/temp/fastcgi;
          uwsgi_temp_path \(dir)/temp/uwsgi;
          scgi_temp_path \(dir)/temp/scgi;
          client_max_body_size 0;
          server {
            listen 127.0.0.1:\(port);
            root \(dir)/root;
            location /objects/ {
              \(dav)
            }
            location /private/ {
              \(dav)
              limit_except GET HEAD PROPFIND {
                auth_basic "reference store";
                auth_basic_user_file \(dir)/htpasswd;
              }
            }
          }
        }
        """
      let file = folder.appendingPathComponent("nginx.conf")
      try configuration.write(to: file, atomically: true, encoding: .utf8)
      return ["-p", dir, "-e", "\(dir)/error.log", "-c", file.path]
    }
  }

  /// The fault server (`__Fixtures__/fault_server.py`), in the dev-tools venv's Python.
  static func faults(_ test: XCTestCase) throws -> LoopbackServer {
    let script = fixtures.appendingPathComponent("fault_server.py").path
    return try LoopbackServer(test, executable: try venvPython()) { port, _ in
      [script, String(port)]
    }
  }

  /// moto's S3 server (`moto_server` from PyPI, in the dev-tools venv): a protocol double of
  /// S3, not AWS.
  /// - Parameter unauthenticated: With a number, moto answers that many requests without
  ///   checking them, then checks every request's signature (recomputed by botocore with the
  ///   keys of an IAM user) and refuses a wrong one.
  static func moto(_ test: XCTestCase, unauthenticated: Int? = nil) throws -> LoopbackServer {
    let server = checkout.appendingPathComponent(".build/dev-tools/venv/bin/moto_server").path
    guard FileManager.default.isExecutableFile(atPath: server) else {
      throw Missing(
        description: "\(server) is missing: moto is not installed; run "
          + "Scripts/install-dependencies --python-tools (Scripts/test does)")
    }
    var environment = ProcessInfo.processInfo.environment
    if let unauthenticated { environment["INITIAL_NO_AUTH_ACTION_COUNT"] = String(unauthenticated) }
    return try LoopbackServer(test, executable: server, environment: environment) { port, _ in
      ["-H", "127.0.0.1", "-p", String(port)]
    }
  }
}
