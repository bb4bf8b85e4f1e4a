import ReferenceImageCore
import ReferenceStore
import TestSupport
import XCTest

final class FolderStoreTests: XCTestCase {
  func testPutGetHasListDelete_roundTrip() throws {
    let folder = try makeTemporaryFolder(self)
    let store = FolderStore(folder: folder.appendingPathComponent("objects"))
    let bytes = Array("some object".utf8)
    let key = ObjectKey(of: bytes)
    XCTAssertEqual(try store.list(), [])
    XCTAssertFalse(try store.has(key))
    XCTAssertTrue(try StoredObject.upload(bytes, to: store))
    XCTAssertFalse(try StoredObject.upload(bytes, to: store), "a second upload changes nothing")
    XCTAssertTrue(try store.has(key))
    XCTAssertEqual(try StoredObject.fetch(key, from: store), bytes)
    XCTAssertEqual(try store.list(), [key])
    XCTAssertTrue(store.url(of: key).path.hasSuffix("/objects/\(key.hex.prefix(2))/\(key.hex)"))
    try store.delete(key)
    try store.delete(key)
    XCTAssertEqual(try store.list(), [])
  }

  func testFetch_ofAMissingObject_namesTheStoreAndTheKey() throws {
    let store = FolderStore(folder: try makeTemporaryFolder(self))
    let key = ObjectKey(of: [1, 2, 3])
    XCTAssertThrowsError(try StoredObject.fetch(key, from: store)) { error in
      XCTAssertEqual(error as? StoreError, .missing(store: store.name, key: key))
    }
  }

  func testFetch_ofReplacedBytes_isRefusedAsCorrupt() throws {
    let store = FolderStore(folder: try makeTemporaryFolder(self))
    let bytes = Array("the object".utf8)
    let key = ObjectKey(of: bytes)
    try store.put(key, Array("other bytes".utf8))
    XCTAssertThrowsError(try StoredObject.fetch(key, from: store)) { error in
      guard case .corrupt(_, let named, _)? = error as? StoreError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(named, key)
    }
  }

  func testGet_overTheLimit_isRefused() throws {
    let store = FolderStore(folder: try makeTemporaryFolder(self))
    let bytes = [UInt8](repeating: 7, count: 100)
    let key = ObjectKey(of: bytes)
    try store.put(key, bytes)
    XCTAssertThrowsError(try store.get(key, limit: 99)) { error in
      XCTAssertEqual(
        error as? StoreError, .tooLarge(store: store.name, key: key, size: 100, limit: 99))
    }
  }

  func testKeys_thatAreNotHex_areRefused() {
    XCTAssertNil(ObjectKey("../" + String(repeating: "a", count: 61)))
    XCTAssertNil(ObjectKey(String(repeating: "A", count: 64)))
    XCTAssertNil(ObjectKey(String(repeating: "a", count: 63)))
    XCTAssertNotNil(ObjectKey(String(repeating: "a", count: 64)))
  }

  func testCache_fillsFromTheStore_andRereadsADamagedCopy() throws {
    let folder = try makeTemporaryFolder(self)
    let store = FolderStore(folder: folder.appendingPathComponent("store"))
    let cache = ObjectCache(
      cache: FolderStore(folder: folder.appendingPathComponent("cache")), store: store)
    let bytes = Array("pixels".utf8)
    let key = ObjectKey(of: bytes)
    try store.put(key, bytes)
    XCTAssertEqual(try cache.object(key).origin, .store)
    XCTAssertEqual(try cache.object(key).origin, .cache)
    try cache.cache.put(key, Array("damaged".utf8))
    let again = try cache.object(key)
    XCTAssertEqual(again.bytes, bytes)
    XCTAssertEqual(again.origin, .store)
    let offline = ObjectCache(cache: cache.cache, store: nil)
    XCTAssertEqual(try offline.object(key).origin, .cache)
    XCTAssertThrowsError(try offline.object(ObjectKey(of: [9])))
  }

  func testCache_thatCannotBeWritten_stillAnswersFromTheStore() throws {
    let folder = try makeTemporaryFolder(self)
    let store = FolderStore(folder: folder.appendingPathComponent("store"))
    let blocked = folder.appendingPathComponent("cache")
    try Data("a file where the cache folder should be".utf8).write(to: blocked)
    let cache = ObjectCache(cache: FolderStore(folder: blocked), store: store)
    let bytes = Array("pixels".utf8)
    try store.put(ObjectKey(of: bytes), bytes)
    XCTAssertEqual(try cache.object(ObjectKey(of: bytes)).bytes, bytes)
    XCTAssertEqual(try cache.object(ObjectKey(of: bytes)).origin, .store, "fetched each time")
  }

  func testPNGForAPointer_whoseSizeWasEdited_isRefusedByName() throws {
    let folder = try makeTemporaryFolder(self)
    let store = FolderStore(folder: folder.appendingPathComponent("store"))
    let png = try PNGEncoder().encode(
      try RGBAImage(width: 3, height: 2, color: RGBAColor(red: 1, green: 2, blue: 3)))
    try StoredObject.upload(png, to: store)
    var pointer = try XCTUnwrap(ReferencePointer(png: png))
    let cache = ObjectCache(
      cache: FolderStore(folder: folder.appendingPathComponent("cache")), store: store)
    XCTAssertEqual(try cache.png(for: pointer, at: "a.png.ref"), png)
    pointer.objectSize += 1
    XCTAssertThrowsError(try cache.png(for: pointer, at: "a.png.ref")) { error in
      XCTAssertTrue(
        "\(error)".contains("a.png.ref is not a reference pointer: it gives object-size"),
        "\(error)")
    }
  }

  func testConfiguration_readsEachBackend_andRefusesMistakesByName() throws {
    let root = URL(fileURLWithPath: "/package")
    func parse(_ json: String) throws -> StoreConfiguration {
      try StoreConfiguration.parse(Array(json.utf8), path: "ReferenceStore.json", packageRoot: root)
    }
    XCTAssertEqual(
      try parse(#"{"version": 1, "store": "folder", "folder": "../objects"}"#).backend,
      .folder(URL(fileURLWithPath: "/objects", isDirectory: true)))
    XCTAssertEqual(
      try parse(#"{"version": 1, "store": "http", "url": "http://127.0.0.1:8080/refs/"}"#).backend,
      .http(base: URL(string: "http://127.0.0.1:8080/refs/")!))
    XCTAssertEqual(
      try parse(
        #"{"version":1,"store":"s3","endpoint":"https://s3.example.com","region":"eu-west-1","bucket":"b"}"#
      ).backend,
      .s3(
        .init(
          endpoint: URL(string: "https://s3.example.com")!, region: "eu-west-1", bucket: "b",
          prefix: "")))
    let presigned = try parse(
      #"{"version": 1, "store": "http", "url": "https://h.example.com/refs/?X-Amz-Signature=secret"}"#
    )
    XCTAssertEqual(presigned.storeName, "https://h.example.com/refs/")
    for (json, fragment) in [
      (#"{"version": 2, "store": "folder", "folder": "x"}"#, "\"version\" is not 1"),
      (#"{"version": 1, "store": "ftp"}"#, "use \"folder\", \"http\" or \"s3\""),
      (#"{"version": 1, "store": "http", "url": "file:///etc"}"#, "not an http or https URL"),
      (
        #"{"version": 1, "store": "folder", "folder": "x", "token": "secret"}"#,
        "unknown field \"token\""
      ),
      ("[]", "not a JSON object"),
    ] {
      XCTAssertThrowsError(try parse(json), json) { error in
        XCTAssertTrue("\(error)".contains(fragment), "\(error)")
        XCTAssertTrue("\(error)".hasPrefix("ReferenceStore.json: "), "\(error)")
      }
    }
  }
}
