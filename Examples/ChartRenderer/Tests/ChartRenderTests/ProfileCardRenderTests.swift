import ChartRenderer
import Foundation
import ReferenceImageTesting
import XCTest

/// Render tests for a card with two remote images. The images come from a `StubImageLoader`, one
/// solid colour per URL: no network, and each colour shows in the reference exactly where the
/// card put that image.
final class ProfileCardRenderTests: XCTestCase {
  private let card = ProfileCard(
    name: "Ada Lovelace", caption: "@ada - 12 charts this week",
    avatarURL: URL(string: "https://images.example.com/avatars/ada.png")!,
    thumbnailURL: URL(string: "https://images.example.com/charts/engine.png")!)

  private let avatarColor = RGBAColor(hex: 0xEF4444)
  private let thumbnailColor = RGBAColor(hex: 0x10B981)

  func testCard_light() throws {
    let images = StubImageLoader()
    images.stub(card.avatarURL, color: avatarColor)
    images.stub(card.thumbnailURL, color: thumbnailColor)
    assertImage(try card.render(images: images.loader()), named: "ada-light")
    XCTAssertEqual(images.requestedURLs, [card.avatarURL, card.thumbnailURL])
  }

  func testCard_dark() throws {
    var card = card
    card.theme = .dark
    let images = StubImageLoader()
    images.stub(card.avatarURL, color: avatarColor)
    images.stub(card.thumbnailURL, color: thumbnailColor)
    assertImage(try card.render(images: images.loader()), named: "ada-dark")
  }

  func testCard_imagePixels_scaledIntoTheirShapes() throws {
    // A 2 x 2 checker shows the image is stretched to the slot and cut to the circle.
    let checker = try RGBAImage(
      width: 2, height: 2,
      pixels: [
        0x3B, 0x82, 0xF6, 0xFF, 0xF5, 0x9E, 0x0B, 0xFF,
        0xF5, 0x9E, 0x0B, 0xFF, 0x3B, 0x82, 0xF6, 0xFF,
      ])
    let images = StubImageLoader()
    images.stub(card.avatarURL, image: checker)
    images.stub(card.thumbnailURL, image: checker)
    assertImage(try card.render(images: images.loader()), named: "ada-checker")
  }

  func testCard_imagesNotLoadedYet_drawsPlaceholderShapes() throws {
    assertImage(try card.render(images: .none), named: "ada-loading")
  }

  func testCard_unstubbedURL_failsNamingTheURL_andDrawsThePlaceholderColour() throws {
    let messages = Messages()
    let images = StubImageLoader(reportingTo: { messages.append($0.message) })
    images.stub(card.avatarURL, color: avatarColor)

    let image = try card.render(images: images.loader())

    XCTAssertEqual(messages.all.count, 1)
    XCTAssertTrue(
      messages.all.first?.contains("https://images.example.com/charts/engine.png") == true,
      "\(messages.all)")
    let slot = ProfileCard.thumbnailFrame.center
    XCTAssertEqual(image[Int(slot.x), Int(slot.y)], StubImageLoader.placeholderColor)
    let avatar = ProfileCard.avatarFrame.center
    XCTAssertEqual(image[Int(avatar.x), Int(avatar.y)], avatarColor)
  }
}

/// Failure messages collected from any thread.
private final class Messages: @unchecked Sendable {
  private let lock = NSLock()
  private var messages: [String] = []

  var all: [String] {
    lock.lock()
    defer { lock.unlock() }
    return messages
  }

  func append(_ message: String) {
    lock.lock()
    defer { lock.unlock() }
    messages.append(message)
  }
}
