import ReferenceImageCore

/// Sample renders with fixed data: what the `ChartGallery` tool writes, and ready-made subjects
/// for render tests.
public enum Gallery {
  /// Every sample as a file-name-friendly name and a function that renders it.
  public static let all: [(name: String, render: @Sendable () throws -> RGBAImage)] = [
    ("bar-light", { try weeklyBuilds(theme: .light).render() }),
    ("bar-dark", { try weeklyBuilds(theme: .dark).render() }),
  ]

  /// A bar chart of builds per weekday.
  /// - Parameter theme: The colours.
  /// - Returns: The chart.
  public static func weeklyBuilds(theme: Theme) -> BarChart {
    BarChart(
      title: "Builds per day", values: [12, 19, 7, 23, 15, 4, 2],
      labels: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"], theme: theme)
  }
}
