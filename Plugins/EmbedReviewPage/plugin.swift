import Foundation
import PackagePlugin

/// Embeds the review page in the `ReferenceReview` module: every `.html`, `.css` and `.js` file
/// of the target's `ReviewPage/` folder becomes a literal of one generated Swift file, so the
/// page travels inside the program instead of in a resource bundle beside it. The folder is
/// listed on every build, so a file added to it is embedded without touching this plugin.
@main
struct EmbedReviewPage: BuildToolPlugin {
  /// The page's languages; other files there (editor or type-checker settings) stay out.
  static let extensions: Set<String> = ["html", "css", "js"]

  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    // The package's tools version (6.0) predates `Target.directoryURL`.
    let folder = context.package.directoryURL.appending(path: "Sources")
      .appending(path: target.name).appending(path: "ReviewPage")
    let inputs = try FileManager.default.contentsOfDirectory(
      at: folder, includingPropertiesForKeys: nil
    )
    .filter { Self.extensions.contains($0.pathExtension) && !$0.lastPathComponent.hasPrefix(".") }
    .sorted { $0.lastPathComponent < $1.lastPathComponent }
    let output = context.pluginWorkDirectoryURL.appending(path: "ReviewPageFiles.swift")
    return [
      .buildCommand(
        displayName: "Embedding the review page (\(inputs.count) files)",
        executable: try context.tool(named: "embed-page").url,
        arguments: [output.path] + inputs.map(\.path),
        inputFiles: inputs,
        outputFiles: [output])
    ]
  }
}
