public import FoundationEssentials

/// ISO-8601 UTC formatting with milliseconds, as every date is shown.
public enum ISO8601 {
    /// "2022-11-04T11:01:25.499Z"; "?" for nil.
    public static func string(_ date: Date?) -> String {
        guard let date else { return "?" }
        return date.formatted(style)
    }

    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
}
