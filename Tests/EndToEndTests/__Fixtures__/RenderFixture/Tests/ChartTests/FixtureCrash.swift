import Foundation
import ReferenceImageTesting
import XCTest

/// Faults for `CrashEndToEndTests`, chosen with `RENDER_FIXTURE_CRASH`. Unset, nothing happens,
/// so the images, counts and failures the other end-to-end tests expect stay the same.
///
/// - `kill`: stores a burst of large images, so the encoding pool is busy, then sends the
///   process SIGKILL.
/// - `fatal`: the same burst, then `fatalError`.
/// - `stall-archive`: stores one more image, waits until it is staged and replaces it with a
///   FIFO, so writing the archive at the end of the run blocks on reading it (it is the last
///   entry): the test kills the process while the archive is half written, without racing it.
/// - `hang:FILE`: writes this process's id to FILE once its image is stored, then sleeps for
///   ten minutes, so `InterruptEndToEndTests` can interrupt a regeneration while a test runs.
enum FixtureCrash {
  static func afterStoring() {
    guard let request = ProcessInfo.processInfo.environment["RENDER_FIXTURE_CRASH"] else {
      return
    }
    switch request {
    case "kill", "fatal":
      for index in 0..<16 {
        assertImage(noise(seed: index), named: "burst/\(index)")
      }
      if request == "kill" {
        kill(getpid(), SIGKILL)
      }
      fatalError("RENDER_FIXTURE_CRASH=fatal")
    case "stall-archive":
      assertImage(noise(seed: 99), named: "zz-stalled")
      stallArchive()
    case let hang where hang.hasPrefix("hang:"):
      let marker = URL(fileURLWithPath: String(hang.dropFirst("hang:".count)))
      do {
        try "\(getpid())\n".write(to: marker, atomically: true, encoding: .utf8)
      } catch {
        XCTFail("cannot write \(marker.path): \(error)")
      }
      sleep(600)
    default:
      XCTFail("unknown RENDER_FIXTURE_CRASH value \(request)")
    }
  }

  /// Replaces this process's staged `zz-stalled.png`, the archive's last entry, with a FIFO.
  private static func stallArchive() {
    guard let output = ProcessInfo.processInfo.environment["IMAGE_GENERATION_OUTPUT"] else {
      XCTFail("stall-archive needs IMAGE_GENERATION_OUTPUT")
      return
    }
    let staging = URL(fileURLWithPath: output).appendingPathComponent(".staging")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
    guard let run = names.first(where: { $0.contains("-\(getpid())-") }) else {
      XCTFail("no staging folder of process \(getpid()) in \(staging.path)")
      return
    }
    // References stored here live in this file's folder, FixtureCrash.
    let image = staging.appendingPathComponent(
      "\(run)/Tests/ChartTests/__References__/FixtureCrash/zz-stalled.png")
    // The pool writes the image in the background; it appears atomically.
    var waits = 0
    while !FileManager.default.fileExists(atPath: image.path) {
      waits += 1
      guard waits < 6000 else {
        XCTFail("\(image.path) was not staged within a minute")
        return
      }
      usleep(10_000)
    }
    guard unlink(image.path) == 0, mkfifo(image.path, 0o644) == 0 else {
      XCTFail("cannot replace \(image.path) with a FIFO: \(String(cString: strerror(errno)))")
      return
    }
  }

  /// 512 × 512 pixels of noise: slow to encode and large, unlike the fixture's flat drawings.
  private static func noise(seed: Int) -> RGBAImage {
    var state = UInt64(seed + 1) &* 0x9E37_79B9_7F4A_7C15
    let pixels = (0..<(512 * 512 * 4)).map { _ -> UInt8 in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 56)
    }
    do {
      return try RGBAImage(width: 512, height: 512, pixels: pixels)
    } catch {
      fatalError("cannot make a noise image: \(error)")
    }
  }
}
