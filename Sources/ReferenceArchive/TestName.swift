/// A test's name as `swift test list` prints it, the name every record of a run uses: the
/// coordinator's manifest (XCTest), the event streams (Swift Testing), shard plans and records.
public enum TestName {
  /// An XCTest test: `Module.Class/testMethod`, from the type's module-qualified name and the
  /// case's name as Linux (`Class.testMethod`) or Apple platforms (`-[Class testMethod]`) spell
  /// it.
  public static func listing(xcTestType typeName: String, caseName: String) -> String {
    let method: Substring
    if caseName.hasPrefix("-["), caseName.hasSuffix("]"), let space = caseName.lastIndex(of: " ") {
      method = caseName[caseName.index(after: space)..<caseName.index(before: caseName.endIndex)]
    } else {
      method = caseName.split(separator: ".").last ?? Substring(caseName)
    }
    return "\(typeName)/\(method)"
  }

  /// A Swift Testing test: its ID without the trailing `/File.swift:line:column` the event
  /// stream adds.
  public static func listing(swiftTestingID id: String) -> String {
    guard let slash = id.lastIndex(of: "/") else { return id }
    let parts = id[id.index(after: slash)...].split(separator: ":")
    let isLocation =
      parts.count >= 3 && parts.suffix(2).allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    return isLocation ? String(id[..<slash]) : id
  }
}
