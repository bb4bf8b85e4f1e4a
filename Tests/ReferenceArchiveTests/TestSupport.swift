import Foundation
import ReferenceImageCore
import XCTest

/// A fresh temporary folder, removed when the test ends.
func makeTemporaryFolder(_ test: XCTestCase, file: StaticString = #filePath) throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "refimg-tests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
  return url
}

/// Runs a program with arguments (never split on spaces), reading both pipes before waiting.
@discardableResult
func runProgram(_ executable: String, _ arguments: [String], in folder: URL? = nil) throws -> (
  status: Int32, output: String, error: String
) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let folder { process.currentDirectoryURL = folder }
  let output = Pipe()
  let error = Pipe()
  process.standardOutput = output
  process.standardError = error
  try process.run()
  // Reading both pipes concurrently keeps a chatty child from blocking on a full pipe.
  nonisolated(unsafe) var errorData = Data()
  let group = DispatchGroup()
  DispatchQueue.global().async(group: group) {
    errorData = error.fileHandleForReading.readDataToEndOfFile()
  }
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  process.waitUntilExit()
  return (
    process.terminationStatus, String(decoding: outputData, as: UTF8.self),
    String(decoding: errorData, as: UTF8.self)
  )
}

/// The path of a tool, or a skip naming the package to install.
func tool(_ name: String, package: String) throws -> String {
  for folder in ["/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin"] {
    let path = "\(folder)/\(name)"
    if FileManager.default.isExecutableFile(atPath: path) { return path }
  }
  throw XCTSkip("\(name) is not installed; apt-get install \(package)")
}

/// A small PNG with a colour that identifies it.
func samplePNG(_ shade: UInt8, width: Int = 8, height: Int = 6) throws -> [UInt8] {
  var image = try RGBAImage(width: width, height: height, color: .white)
  image[1, 1] = RGBAColor(red: shade, green: 255 &- shade, blue: 40)
  return try PNGEncoder().encode(image)
}
