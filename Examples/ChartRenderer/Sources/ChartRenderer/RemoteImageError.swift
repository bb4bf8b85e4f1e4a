import Foundation
import ReferenceImageCore

/// Why `RemoteImageClient` could not produce an image; every case names the URL.
public enum RemoteImageError: Error, CustomStringConvertible {
  /// The server answered with a status outside 200–299.
  case httpStatus(url: URL, status: Int)
  /// The body is not a PNG `PNGDecoder` can read.
  case undecodable(url: URL, error: PNGError)
  /// The request failed before a response: no connection, a timeout, a TLS error.
  case transport(url: URL, error: any Error)

  /// The URL that failed.
  public var url: URL {
    switch self {
    case .httpStatus(let url, _), .undecodable(let url, _), .transport(let url, _): return url
    }
  }

  public var description: String {
    switch self {
    case .httpStatus(let url, let status):
      return "loading \(url.absoluteString) failed with HTTP status \(status)"
    case .undecodable(let url, let error):
      return "the image at \(url.absoluteString) is not a readable PNG: \(error)"
    case .transport(let url, let error):
      return "loading \(url.absoluteString) failed: \(error.localizedDescription)"
    }
  }
}
