import Foundation

// Dates in the one form `JSONEncoder`'s `.iso8601` writes.
extension StrictJSONReader {
  /// Reads a date as `JSONDecoder.DateDecodingStrategy.iso8601` does, in the one form
  /// `JSONEncoder`'s `.iso8601` writes: `2026-11-27T08:20:11Z`.
  mutating func iso8601Date() throws(Unsure) -> Date {
    let text = try string()
    guard let seconds = Self.secondsSince1970(iso8601: Array(text.utf8)) else { throw Unsure() }
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }

  /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SSZ`, a valid Gregorian date from 1970 to 9999;
  /// nil for any other text.
  static func secondsSince1970(iso8601 text: [UInt8]) -> Int? {
    guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
      text[10] == UInt8(ascii: "T"), text[13] == UInt8(ascii: ":"),
      text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for position in range {
        guard let digit = digit(text[position]) else { return nil }
        value = value * 10 + digit
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      year >= 1970, (1...12).contains(month), hour < 24, minute < 60, second < 60,
      (1...daysIn(month: month, year: year)).contains(day)
    else { return nil }
    let days = daysSince1970(year: year, month: month, day: day)
    return ((days * 24 + hour) * 60 + minute) * 60 + second
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days from 1970-01-01 to a Gregorian date (Howard Hinnant's `days_from_civil`).
  private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = shiftedYear / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
