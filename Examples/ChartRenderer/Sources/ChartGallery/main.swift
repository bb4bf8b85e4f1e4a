import ChartRenderer
import Foundation
import ReferenceImageCore

// Writes every example render as a PNG, to look at while changing the renderer:
// `swift run ChartGallery /tmp/charts`.
let folder = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "gallery")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

for (name, render) in Gallery.all {
  let png = try PNGEncoder().encode(try render())
  let file = folder.appendingPathComponent(name + ".png")
  try Data(png).write(to: file)
  print(file.path)
}
