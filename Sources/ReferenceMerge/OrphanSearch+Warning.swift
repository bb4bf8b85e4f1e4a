extension OrphanSearch {
  /// The warning that orphans were not looked for, or nil when it would say nothing a person
  /// can use. Only a generation run in mode `all` records every image its tests own, so only a
  /// merge with such a run could ever find orphans: after a verify run's archive or a merge of
  /// modes `missing` and `failed` alone, orphans never apply and the warning is left out.
  /// - Parameter plan: The plan, with the search's refusal when there was one.
  /// - Returns: "orphans were not looked for: …", or nil.
  static func warning(for plan: MergePlan) -> String? {
    guard let reason = plan.orphanSearchRefusal, !plan.orphanSearchDone,
      plan.inventories.contains(where: { $0.manifest?.mode == .all })
    else { return nil }
    return "orphans were not looked for: \(reason)"
  }
}
