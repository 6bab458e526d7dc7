package import FoundationEssentials

/// The dates of legacy receipts: RFC 3339 text in IA5Strings, `2020-11-29T19:21:44Z`, and in
/// some Xcode receipts with an offset, `2023-10-19T03:18:54+0200` (or `+02:00`).
package enum ReceiptDate {
    /// A date attribute as the access rule reads it.
    package enum Reading: Sendable, Equatable {
        /// Not there, or an empty string (Apple's receipts hold `""` for no expiry or no cancellation).
        case absent
        case date(Date)
        /// There, but no one date: another ASN.1 type, text that is no date, or the field more
        /// than once; the words say which ("expires_date is an INTEGER (5), not a date").
        case unreadable(String)
    }

    /// The date attribute `type` of `attributes`, named `name` in the words; anything present
    /// that is not an empty string or one parseable date is unreadable, never absent.
    static func read(_ type: Int, named name: String, in attributes: [ReceiptAttribute]) -> Reading {
        var found: ReceiptAttribute?
        var count = 0
        for attribute in attributes where attribute.type == type {
            count += 1
            if found == nil { found = attribute }
        }
        guard let found else { return .absent }
        if count > 1 { return .unreadable("\(name) appears \(count) times") }
        switch found.value {
        case .utf8String(let text), .ia5String(let text):
            if text.isEmpty { return .absent }
            if let date = parse(text) { return .date(date) }
            return .unreadable("\(name) \"\(Excerpt.of(text))\" is not a date")
        case .integer(let number):
            return .unreadable("\(name) is an INTEGER (\(number)), not a date")
        case .raw(let bytes):
            return .unreadable("\(name) is not a date string (DER \(Array(bytes.prefix(8)).hexString())…)")
        }
    }

    /// The moment `text` names, or nil when it is not `YYYY-MM-DDTHH:MM:SS[.fraction]` followed
    /// by `Z`, `±HHMM` or `±HH:MM` with every part in range (years 0001 to 9999, months 1–12,
    /// days within the month, hours 0–23, minutes 0–59, seconds 0–60; a leap second counts as
    /// the next second). An empty text (an absent cancellation or expiry) is nil.
    package static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func at(_ index: Int, _ character: Unicode.Scalar) -> Bool {
            index < bytes.count && bytes[index] == UInt8(ascii: character)
        }
        guard let year = number(0, 4), at(4, "-"), let month = number(5, 2), at(7, "-"), let day = number(8, 2),
            at(10, "T") || at(10, "t") || at(10, " "), let hour = number(11, 2), at(13, ":"),
            let minute = number(14, 2), at(16, ":"), let second = number(17, 2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23,
            minute <= 59, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if at(index, ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard let offset = offsetSeconds(bytes, from: index) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// The zone suffix from `index` to the end as seconds east of UTC: `Z` is 0, `+0100` and
    /// `+01:00` are 3600; nil for anything else.
    private static func offsetSeconds(_ bytes: [UInt8], from index: Int) -> Int? {
        let rest = Array(bytes[index...])
        if rest == [UInt8(ascii: "Z")] || rest == [UInt8(ascii: "z")] { return 0 }
        guard rest.count == 5 || rest.count == 6, rest[0] == UInt8(ascii: "+") || rest[0] == UInt8(ascii: "-")
        else { return nil }
        let digits = rest.count == 6 ? [rest[1], rest[2], rest[4], rest[5]] : Array(rest[1...4])
        guard rest.count == 5 || rest[3] == UInt8(ascii: ":"),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let values = digits.map { Int($0 - UInt8(ascii: "0")) }
        let hours = values[0] * 10 + values[1]
        let minutes = values[2] * 10 + values[3]
        guard hours <= 23, minutes <= 59 else { return nil }
        let sign = rest[0] == UInt8(ascii: "-") ? -1 : 1
        return sign * (hours * 3_600 + minutes * 60)
    }

    /// Days in `month` of `year` (proleptic Gregorian).
    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
