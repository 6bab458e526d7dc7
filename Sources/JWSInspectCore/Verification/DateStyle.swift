package import FoundationEssentials

/// How the dates in words for people read: ISO-8601 in UTC (`utc`: JSON always, tables by
/// default), or in a reader's time zone (tables with `--time-zone`), given by the zone's offset
/// from UTC at each moment. The same instant either way; only how it is written differs.
package struct DateStyle: Sendable {
    /// Seconds east of UTC at a moment; nil when the zone cannot say (that moment is shown in UTC).
    private let offset: (@Sendable (Date) -> Int?)?

    /// ISO-8601 in UTC, "2022-11-04T11:01:25.499Z" (`ISO8601.string`).
    package static let utc = DateStyle(offset: nil)

    /// Dates in a zone whose offset from UTC at a moment is `offset` (seconds east of UTC).
    package init(offset: (@Sendable (Date) -> Int?)?) {
        self.offset = offset
    }

    /// Whether every date is written in UTC.
    package var isUTC: Bool { offset == nil }

    /// "2022-11-04T11:01:25.499Z", or in a zone one hour east "2022-11-04T12:01:25.499+01:00";
    /// "?" for nil or a date ISO-8601 cannot write.
    package func stamp(_ date: Date?) -> String {
        let utc = ISO8601.string(date)
        guard let date, let offset, utc != "?", let seconds = offset(date) else { return utc }
        let local = ISO8601.string(date.addingTimeInterval(Double(seconds)))
        guard local != "?", local.hasSuffix("Z") else { return utc }
        return local.dropLast() + Self.offsetText(seconds)
    }

    /// "2022-11-04": the day of `date` in the zone (UTC by default).
    package func day(_ date: Date) -> String {
        String(stamp(date).prefix(10))
    }

    /// "+01:00", "-03:30", "+00:00"; "+00:09:21" for the odd historical offset in seconds.
    static func offsetText(_ seconds: Int) -> String {
        let magnitude = abs(seconds)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        var text = (seconds < 0 ? "-" : "+") + two(magnitude / 3600) + ":" + two(magnitude / 60 % 60)
        if magnitude % 60 != 0 { text += ":" + two(magnitude % 60) }
        return text
    }
}
