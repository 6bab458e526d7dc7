package import FoundationEssentials

/// App Store dates: milliseconds since 1970, as JSON numbers.
///
/// Every one of them comes from untrusted input, so none becomes a `Date`, a `time_t` or an
/// integer without passing through here: only moments within years 0001 to 9999 are dates
/// (what ISO 8601's four-digit years can show; `time_t` and OpenSSL hold them all). Anything
/// else (`1e22`, a 30-digit integer, `-1e22`) is "not a valid date", never a trap.
package enum Timestamp {
    /// 0001-01-01T00:00:00.000Z in milliseconds since 1970.
    package static let earliestMilliseconds: Double = -62_135_596_800_000
    /// 9999-12-31T23:59:59.999Z in milliseconds since 1970.
    package static let latestMilliseconds: Double = 253_402_300_799_999

    /// How messages name the range.
    package static let rangeDescription = "milliseconds since 1970 within years 0001 to 9999"

    /// The moment `milliseconds` since 1970 names, or nil when it is not a valid date.
    package static func date(milliseconds: Double) -> Date? {
        guard milliseconds.isFinite, milliseconds >= earliestMilliseconds, milliseconds <= latestMilliseconds else {
            return nil
        }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    /// The date a payload member holds, when it is a number that is a valid date.
    package static func date(_ value: JSONValue?) -> Date? {
        value?.numberValue.flatMap { date(milliseconds: $0) }
    }

    /// The moment milliseconds since 1970 written as decimal text name (a StoreKit 1 transaction
    /// receipt's `purchase-date-ms`): 1 to 15 ASCII digits, after a `-` for a moment before 1970,
    /// within years 0001 to 9999; nil for any other text.
    package static func date(millisecondsText text: String) -> Date? {
        var digits = text.utf8[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard (1...15).contains(digits.count),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        let magnitude = digits.reduce(0.0) { $0 * 10 + Double($1 - UInt8(ascii: "0")) }
        return date(milliseconds: negative ? -magnitude : magnitude)
    }

    /// Whether `date` lies within years 0001 to 9999.
    package static func isValid(_ date: Date) -> Bool {
        Self.date(milliseconds: date.timeIntervalSince1970 * 1000) != nil
    }

    /// Whole seconds since 1970 (rounded down), as OpenSSL takes a verification time;
    /// nil for a date outside years 0001 to 9999.
    static func seconds(_ date: Date) -> Int64? {
        guard isValid(date) else { return nil }
        return Int64(exactly: date.timeIntervalSince1970.rounded(.down))
    }
}
