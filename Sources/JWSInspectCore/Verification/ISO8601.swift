public import FoundationEssentials

/// ISO-8601 UTC formatting with milliseconds, as every date is shown.
public enum ISO8601 {
    /// "2022-11-04T11:01:25.499Z"; "?" for nil.
    ///
    /// Milliseconds are rounded, not truncated: Apple's integer millisecond timestamps
    /// are not exact in binary floating point (…941 ms is stored as …940.99…).
    public static func string(_ date: Date?) -> String {
        guard let date else { return "?" }
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e17 else { return "?" }
        let seconds = (milliseconds / 1000).rounded(.down)
        let fraction = Int(milliseconds - seconds * 1000)
        let whole = Date(timeIntervalSince1970: seconds).formatted(style)
        let digits = String(fraction)
        return String(whole.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    private static let style = Date.ISO8601FormatStyle(timeZone: .gmt)
}
