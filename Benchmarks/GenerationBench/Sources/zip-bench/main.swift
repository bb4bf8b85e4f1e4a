import Foundation
import ReferenceArchive

// zip-bench FOLDER OUTPUT: zips every regular file under FOLDER (sorted, paths relative to it)
// into OUTPUT with ZipWriter, as the coordinator's finishRun does with its staging folder.
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
  FileHandle.standardError.write(Data("usage: zip-bench FOLDER OUTPUT\n".utf8))
  exit(2)
}
let started = DispatchTime.now()
let folder = URL(fileURLWithPath: arguments[1]).standardizedFileURL
let output = URL(fileURLWithPath: arguments[2])
// The folder is listed with readdir, as bsdtar does: FileManager's enumerator costs about 30 µs
// a file in URL and string bridging, which would be charged to ZipWriter otherwise.
func regularFiles(under relative: String, into paths: inout [String]) {
  let absolute = relative.isEmpty ? folder.path : folder.path + "/" + relative
  guard let directory = opendir(absolute) else { return }
  defer { closedir(directory) }
  while let entry = readdir(directory) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
      String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
    }
    if name == "." || name == ".." { continue }
    let path = relative.isEmpty ? name : relative + "/" + name
    switch Int32(entry.pointee.d_type) {
    case Int32(DT_DIR): regularFiles(under: path, into: &paths)
    case Int32(DT_REG): paths.append(path)
    default: break
    }
  }
}
var paths: [String] = []
regularFiles(under: "", into: &paths)
let entries = paths.sorted().map {
  ZipWriter.Entry(path: $0, contents: .file(folder.appendingPathComponent($0)))
}
let listed = DispatchTime.now()
do {
  try ZipWriter().write(entries, to: output)
} catch {
  FileHandle.standardError.write(Data("zip-bench: \(error)\n".utf8))
  exit(1)
}
let written = DispatchTime.now()
// With ZIP_BENCH_PHASES set, the split between listing the folder and ZipWriter.write.
if ProcessInfo.processInfo.environment["ZIP_BENCH_PHASES"] != nil {
  func ms(_ a: DispatchTime, _ b: DispatchTime) -> Double {
    Double(b.uptimeNanoseconds - a.uptimeNanoseconds) / 1e6
  }
  let phases = "listing \(ms(started, listed)) ms, ZipWriter.write \(ms(listed, written)) ms\n"
  FileHandle.standardError.write(Data(phases.utf8))
}
print(entries.count)
