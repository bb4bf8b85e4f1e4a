import Foundation
import ReferenceArchive
import ReferenceContracts

/// One process's private folder of generated images: PNGs at their package-relative paths plus
/// the manifest. It is written so that a crash at any moment leaves something `merge-refs` can
/// read: each PNG appears atomically, and the manifest says `running` until the run finishes.
struct StagingFolder: Sendable, Equatable {
  let url: URL

  /// Creates `<archiveFolder>/.staging/<run name>/`; the name is unique per process.
  init(archiveFolder: URL, runName: String) throws(ReferenceImageError) {
    url = archiveFolder.appendingPathComponent(GenerationContract.stagingFolderName)
      .appendingPathComponent(runName)
    do {
      try FileSystem.createFolder(url)
    } catch {
      throw .writeFailed(path: url.path, reason: "\(error)")
    }
  }

  func write(png: [UInt8], relativePath: String) throws(ReferenceImageError) {
    let target = url.appendingPathComponent(relativePath)
    do {
      try FileSystem.writeAtomically(png, to: target)
    } catch {
      throw .writeFailed(path: target.path, reason: "\(error)")
    }
  }

  func write(manifest: ArchiveManifest) throws(ReferenceImageError) {
    let target = url.appendingPathComponent(ArchiveManifest.entryName)
    do {
      try FileSystem.writeAtomically(Array(try manifest.encoded()), to: target)
    } catch {
      throw .writeFailed(path: target.path, reason: "\(error)")
    }
  }

  /// Zips the manifest and every image into `archive` (atomically), then removes the folder.
  func archive(manifest: ArchiveManifest, to archive: URL) throws(ReferenceImageError) {
    try write(manifest: manifest)
    var entries = [
      ZipWriter.Entry(
        path: ArchiveManifest.entryName,
        contents: .file(url.appendingPathComponent(ArchiveManifest.entryName)))
    ]
    for image in manifest.images {
      entries.append(
        .init(path: image.path, contents: .file(url.appendingPathComponent(image.path))))
    }
    do {
      try ZipWriter().write(entries, to: archive)
    } catch {
      throw .writeFailed(path: archive.path, reason: "\(error)")
    }
    remove()
  }

  /// Removes the folder, and the `.staging` parent when no other worker uses it any more.
  func remove() {
    try? FileManager.default.removeItem(at: url)
    // rmdir fails harmlessly while another worker's folder is still inside.
    rmdir(url.deletingLastPathComponent().path)
  }
}
