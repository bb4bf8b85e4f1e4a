import Foundation
import ReferenceContracts

/// The reference folder most merge tests write to: one test class's folder in a test target.
public let chartFolder = "Tests/ChartTests/__References__/BarChart"

/// The package-relative path of the reference `name` in `folder`, or of its variant's file.
/// - Parameters:
///   - name: The image's name, without `.png`.
///   - variant: The variant whose file it is (`ReferenceVariants`); nil for the base.
///   - folder: The reference folder; `chartFolder` unless given.
public func path(_ name: String, _ variant: String? = nil, in folder: String = chartFolder)
  -> String
{
  VariantPath.path(of: "\(folder)/\(name).png", variant: variant)
}

/// A scenario's short name for `name`'s file of `variant` (`a@@macos` for `a`), which
/// `MergeScenario.path` turns into the variant file's path.
public func variantName(_ name: String, _ variant: String) -> String {
  name + ReferenceVariants.marker + variant
}

/// A committed hostile archive from `Tests/ReferenceMergeTests/__Fixtures__/hostile` (see
/// `make_hostile_archives.py` there): the merge's tests refuse them, and the command line's
/// check what the user sees of a refusal.
public func hostileFixture(_ name: String, file: StaticString = #filePath) -> URL {
  URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("ReferenceMergeTests/__Fixtures__/hostile/\(name)")
}
