package import FoundationEssentials

/// When to try a request again, and how long to wait first.
///
/// - 429: until `Retry-After`. Apple sends a UNIX time in milliseconds; RFC 9110's
///   delta-seconds and HTTP-date are accepted too. Without a usable header, as for 5xx.
/// - 5xx, Apple's retryable error codes, timeouts and connection errors: exponential backoff
///   (1 s, 2 s, 4 s…) with jitter, so that many clients do not retry in step.
/// - Never more than `longestWait` at once.
package struct RetryPolicy: Sendable {
    /// Retries after the first attempt.
    package var retries: Int
    /// The first backoff, in seconds; each retry doubles it.
    package var baseDelay: Double = 1
    /// The longest wait before one retry, in seconds.
    package static let longestWait: Double = 60

    package init(retries: Int) {
        self.retries = retries
    }

    /// The backoff before retry `attempt` (1 for the first retry): `baseDelay` × 2^(attempt−1),
    /// at most `longestWait`, scaled by `jitter` (a random number from 0.5 to 1).
    package func backoff(attempt: Int, jitter: Double) -> Double {
        let exponent = min(max(attempt - 1, 0), 16)
        let delay = min(baseDelay * Double(1 << exponent), Self.longestWait)
        return min(delay * min(max(jitter, 0.5), 1), Self.longestWait)
    }

    /// The wait a `Retry-After` value asks for, in seconds from `now` (0 when the time has
    /// passed), at most `longestWait`; nil when the value is none of the three forms.
    ///
    /// A number of 11 or more digits is a UNIX time in milliseconds (Apple's form: 10^10 ms
    /// is 1970-04-26, while 10^10 seconds of delay are three centuries); a shorter one is
    /// delta-seconds; anything else is tried as an HTTP-date.
    package static func retryAfter(_ value: String, now: Date) -> Double? {
        let text = String(value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            if text.utf8.count >= 11 {
                // Past 19 digits the number does not fit; such a time is "later than any wait".
                guard text.utf8.count <= 18, let milliseconds = Int64(text) else { return longestWait }
                let seconds = Double(milliseconds) / 1000 - now.timeIntervalSince1970
                return min(max(seconds, 0), longestWait)
            }
            guard let seconds = Int(text) else { return nil }
            return min(Double(seconds), longestWait)
        }
        guard let date = httpDate(text) else { return nil }
        return min(max(date.timeIntervalSince(now), 0), longestWait)
    }

    /// The month names of HTTP-dates, January first.
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// An RFC 9110 HTTP-date in its preferred form (`Sun, 06 Nov 1994 08:49:37 GMT`).
    package static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), (1...31).contains(day),
            let monthIndex = Self.months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int(parts[3]), (1970...9999).contains(year)
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), (0...23).contains(hour), let minute = Int(time[1]),
            (0...59).contains(minute), let second = Int(time[2]), (0...60).contains(second)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let components = DateComponents(
            year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second)
        return calendar.date(from: components)
    }

    /// `date` as an RFC 9110 HTTP-date.
    package static func httpDateText(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return
            "\(weekdays[((parts.weekday ?? 1) - 1) % 7]), \(two(parts.day)) \(Self.months[((parts.month ?? 1) - 1) % 12]) "
            + "\(parts.year ?? 1970) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) GMT"
    }
}
