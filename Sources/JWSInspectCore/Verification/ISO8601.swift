// `struct tm` and its members reach this module through COpenSSL (OpenSSL includes time.h):
// without this import, release builds refuse them (MemberImportVisibility).
internal import COpenSSL
public import FoundationEssentials

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// ISO-8601 UTC formatting with milliseconds, as every date is shown.
public enum ISO8601 {
    /// "2022-11-04T11:01:25.499Z"; "?" for nil or a date beyond years 0001–9999.
    ///
    /// Milliseconds are rounded, not truncated: Apple's integer millisecond timestamps
    /// are not exact in binary floating point (…941 ms is stored as …940.99…). Formatted
    /// with `gmtime_r` because this runs for every token (several times), and a
    /// `FormatStyle` costs microseconds each.
    public static func string(_ date: Date?) -> String {
        guard let date else { return "?" }
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        // Years 0001 to 9999 only: ISO-8601's four-digit years.
        guard milliseconds.isFinite, milliseconds >= -62_135_596_800_000, milliseconds < 253_402_300_800_000 else {
            return "?"
        }
        let seconds = (milliseconds / 1000).rounded(.down)
        let fraction = Int(milliseconds - seconds * 1000)
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "?" }
        var out: [UInt8] = []
        out.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1900, 4)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        out.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        out.append(UInt8(ascii: "."))
        digits(fraction, 3)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }
}
