import Foundation

/// Reads a JSON file this tool wrote with a `formatVersion`: the bytes, the version's range, then
/// the document. Each file type words the failures for its own readers.
enum VersionedJSON {
  /// Why a file could not be read.
  enum Failure: Error {
    /// The bytes could not be read.
    case unreadable(String)
    /// An older version than this tool accepts.
    case tooOld(Int)
    /// A newer version than this tool knows.
    case tooNew(Int)
    /// Not the JSON of the type.
    case undecodable(String)
  }

  private struct Version: Decodable {
    var formatVersion: Int
  }

  /// Reads and decodes `url`, its dates ISO 8601.
  /// - Parameters:
  ///   - url: The file.
  ///   - versions: The format versions this tool reads.
  static func read<Document: Decodable>(
    _: Document.Type, from url: URL, versions: ClosedRange<Int>
  ) throws(Failure) -> Document {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw .unreadable("\(error)")
    }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    // The version first: an old or new document may not decode as this tool's type at all.
    if let version = try? decoder.decode(Version.self, from: data).formatVersion {
      if version < versions.lowerBound { throw .tooOld(version) }
      if version > versions.upperBound { throw .tooNew(version) }
    }
    do {
      return try decoder.decode(Document.self, from: data)
    } catch {
      throw .undecodable("\(error)")
    }
  }
}
