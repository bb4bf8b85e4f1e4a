// The merge's test helpers and the scenario language (Tests/MergeTestSupport), and the helpers
// every test target shares (Tests/TestSupport), for every file of this target.
@_exported import MergeTestSupport
@_exported import TestSupport
