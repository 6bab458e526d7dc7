package import FoundationEssentials

/// ISO-8601 UTC formatting with milliseconds, as every date is shown.
package enum ISO8601 {
    /// "2022-11-04T11:01:25.499Z"; "?" for nil or a date beyond years 0001–9999.
    ///
    /// Milliseconds are rounded, not truncated: Apple's integer millisecond timestamps
    /// are not exact in binary floating point (…941 ms is stored as …940.99…).
    package static func string(_ date: Date?) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        write(date, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes `string(date)`'s text to `out`, without making a String: this runs for every
    /// date of every result. The calendar date comes from the day number by integer arithmetic
    /// (the proleptic Gregorian calendar, as `gmtime_r` has it), no formatter, no call.
    static func write<Sink: ByteSink>(_ date: Date?, to out: inout Sink) {
        guard let date else { return out.write(UInt8(ascii: "?")) }
        let rounded = (date.timeIntervalSince1970 * 1000).rounded()
        // Years 0001 to 9999 only: ISO-8601's four-digit years.
        guard rounded.isFinite, rounded >= -62_135_596_800_000, rounded < 253_402_300_800_000 else {
            return out.write(UInt8(ascii: "?"))
        }
        let milliseconds = Int64(rounded)
        let (seconds, fraction) = floorDivision(milliseconds, 1000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civil(days: days)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            func digits(_ value: Int64, _ count: Int, at offset: Int) {
                var rest = value
                for index in stride(from: offset + count - 1, through: offset, by: -1) {
                    text[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            }
            digits(year, 4, at: 0)
            text[4] = UInt8(ascii: "-")
            digits(month, 2, at: 5)
            text[7] = UInt8(ascii: "-")
            digits(day, 2, at: 8)
            text[10] = UInt8(ascii: "T")
            digits(secondOfDay / 3600, 2, at: 11)
            text[13] = UInt8(ascii: ":")
            digits(secondOfDay / 60 % 60, 2, at: 14)
            text[16] = UInt8(ascii: ":")
            digits(secondOfDay % 60, 2, at: 17)
            text[19] = UInt8(ascii: ".")
            digits(fraction, 3, at: 20)
            text[23] = UInt8(ascii: "Z")
            out.write(UnsafeBufferPointer(text))
        }
    }

    /// The quotient rounded down and the remainder that goes with it (never negative).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor - (value % divisor < 0 ? 1 : 0)
        return (quotient, value - quotient * divisor)
    }

    /// The year, month and day of the day `days` after 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`: days counted from 0000-03-01 in eras of 400 years, each 146,097 days).
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
