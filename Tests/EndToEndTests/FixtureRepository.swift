import Foundation
import XCTest

/// A fixture package of `__Fixtures__` copied into a new git repository, depending on this
/// checkout by path, with everything committed: what the CI recipe's jobs check out.
/// - Parameters:
///   - name: The fixture's folder name, such as `RecipeFixture`.
///   - folder: Where the repository goes.
/// - Returns: The repository's folder.
func makeFixtureRepository(_ name: String, in folder: URL) throws -> URL {
  let checkout = FixturePackage.checkout
  let repository = folder.appendingPathComponent(name)
  try FileManager.default.copyItem(
    at: checkout.appendingPathComponent("Tests/EndToEndTests/__Fixtures__/\(name)"),
    to: repository)
  let manifest = repository.appendingPathComponent("Package.swift")
  let text = try String(contentsOf: manifest, encoding: .utf8)
    .replacingOccurrences(of: "REFERENCE_IMAGES_ROOT", with: checkout.path)
  try text.write(to: manifest, atomically: true, encoding: .utf8)
  try git(["init", "--quiet", "--initial-branch=main"], in: repository)
  try commitEverything("fixture", in: repository)
  return repository
}

/// `git add --all` and a commit by the fixture's author.
func commitEverything(_ message: String, in repository: URL) throws {
  try git(["add", "--all"], in: repository)
  try git(
    [
      "-c", "user.name=fixture", "-c", "user.email=fixture@localhost", "commit", "--quiet",
      "--message", message,
    ], in: repository)
}

/// Runs git in a repository; a failure throws with its output.
func git(_ arguments: [String], in repository: URL) throws {
  let git = try runProcess("/usr/bin/env", ["git"] + arguments, in: repository)
  guard git.status == 0 else { throw FixtureError(message: "git \(arguments): \(git.all)") }
}
