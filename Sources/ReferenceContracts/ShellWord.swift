/// Words of a command line as a POSIX shell reads them back, for the commands that messages
/// and summaries print: a pasted command must mean exactly what was printed.
package enum ShellWord {
  /// A word as it is when it holds only characters no shell treats specially, else in single
  /// quotes (a quote inside written as `'\''`).
  package static func quoted(_ word: String) -> String {
    let safe = word.allSatisfy {
      $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:@%+,".contains($0))
    }
    if safe && !word.isEmpty { return word }
    return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }

  /// Words joined into one command line, each quoted as needed.
  package static func line(_ words: [String]) -> String {
    words.map(quoted).joined(separator: " ")
  }
}
