internal import FoundationEssentials
internal import JWSInspectCore

/// `--time-zone local|UTC|ZONE`: the zone tables show dates in (JSON stays UTC). `UTC`, the
/// default, shows them as before; any other zone writes every moment as ISO-8601 with that
/// zone's offset ("2024-05-01T14:00:00.000+02:00") and every day in its local date.
struct DisplayZone: Sendable {
    /// As given, for messages ("Europe/Paris", "local").
    let name: String
    /// nil for UTC.
    private let rules: ZoneRules?

    static let utc = DisplayZone(name: "UTC", rules: nil)

    /// Where the system's zone files are, and the local zone's file.
    static let zoneDirectory = "/usr/share/zoneinfo"
    static let localFile = "/etc/localtime"

    /// What `--time-zone` takes, for help and messages.
    static let accepted = "local, UTC, an IANA name such as Europe/Paris, or an offset such as +02:00"

    private init(name: String, rules: ZoneRules?) {
        self.name = name
        self.rules = rules
    }

    var isUTC: Bool { rules == nil }

    /// How the core writes dates in words for this zone.
    var style: DateStyle {
        guard let rules else { return .utc }
        return DateStyle { date in
            let seconds = date.timeIntervalSince1970.rounded(.down)
            guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
            return rules.offset(at: Int64(seconds))
        }
    }

    /// The zone `text` names, reading `TZ` (through `environment`) for `local`, and zone files
    /// through `read` (a whole file, bounded; nil when there is none); or why it cannot be used.
    static func named(
        _ text: String, environment: (String) -> String?, read: (String) -> Result<[UInt8], ZoneError>?
    ) -> Result<DisplayZone, ZoneError> {
        let lowered = text.lowercased()
        if lowered == "utc" || lowered == "z" { return .success(.utc) }
        if lowered == "local" {
            // As the C library reads it: TZ when set (":NAME", a NAME, or a POSIX rule), else /etc/localtime.
            guard let tz = environment("TZ") else {
                switch read(localFile) {
                case nil: return .success(.utc)
                case .success(let bytes)?: return rules(bytes, name: "local (\(localFile))").map { zone($0, "local") }
                case .failure(let error)?: return .failure(ZoneError("local (\(localFile)): \(error.reason)"))
                }
            }
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if name.isEmpty || name.uppercased() == "UTC" { return .success(.utc) }
            if isZoneName(name), let found = read(zoneDirectory + "/" + name) {
                return found.flatMap { rules($0, name: "local (TZ=\(tz))") }.map { zone($0, "local") }
            }
            guard let rule = ZoneRules(posix: name) else {
                return .failure(ZoneError("local: TZ=\(tz) is neither a zone in \(zoneDirectory) nor a POSIX TZ rule"))
            }
            return .success(zone(rule, "local"))
        }
        if let offset = fixedOffset(text) { return .success(zone(ZoneRules(fixed: offset), text)) }
        guard isZoneName(text) else {
            return .failure(ZoneError("'\(text)' is not a time zone: give \(accepted)"))
        }
        switch read(zoneDirectory + "/" + text) {
        case nil:
            return .failure(ZoneError("unknown time zone '\(text)' (no \(zoneDirectory)/\(text)): give \(accepted)"))
        case .success(let bytes)?: return rules(bytes, name: text).map { zone($0, text) }
        case .failure(let error)?: return .failure(ZoneError("\(text): \(error.reason)"))
        }
    }

    /// Reads the zone the option names from this system's files and environment.
    static func named(_ text: String, environment: (String) -> String?) -> Result<DisplayZone, ZoneError> {
        named(text, environment: environment) { path in
            switch System.readFile(path, limit: ZoneRules.fileLimit) {
            case .success(let bytes?): .success(bytes)
            case .success(nil): .failure(ZoneError("larger than a zone file (\(ZoneRules.fileLimit) bytes)"))
            case .failure(let error) where System.isMissing(error): nil
            case .failure(let error): .failure(ZoneError("cannot read \(path): \(error)"))
            }
        }
    }

    private static func zone(_ rules: ZoneRules, _ name: String) -> DisplayZone {
        DisplayZone(name: name, rules: rules)
    }

    private static func rules(_ bytes: [UInt8], name: String) -> Result<ZoneRules, ZoneError> {
        do throws(ZoneError) {
            return .success(try ZoneRules(tzif: bytes))
        } catch {
            return .failure(ZoneError("\(name): \(error.reason)"))
        }
    }

    /// An IANA zone name as a relative path under the zone directory: letters, digits, `_+-`,
    /// components joined by `/`, none of them empty, `.` or `..`.
    static func isZoneName(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 255 else { return false }
        let allowed = text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "/")
        }
        return allowed && text.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty }
    }

    /// "+02:00", "-0330", "+05": seconds east of UTC, up to 18 hours either way.
    static func fixedOffset(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        var digits = Array(bytes.dropFirst())
        if digits.count == 5, digits[2] == UInt8(ascii: ":") { digits.remove(at: 2) }
        guard digits.count == 2 || digits.count == 4,
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let number = digits.map { Int($0 - UInt8(ascii: "0")) }
        let hours = number[0] * 10 + number[1]
        let minutes = digits.count == 4 ? number[2] * 10 + number[3] : 0
        guard minutes < 60, hours * 60 + minutes <= 18 * 60 else { return nil }
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    // MARK: Rewriting

    /// `text` with every moment the core wrote in UTC ("2024-05-01T12:00:00.000Z", exactly as
    /// `ISO8601.string` writes it) written in this zone instead. The checks, notes and reasons
    /// are worded when verified, in UTC; tables show them in the zone through this. One pass.
    func rewrite(_ text: String) -> String {
        guard rules != nil else { return text }
        let bytes = Array(text.utf8)
        let length = 24
        guard bytes.count >= length else { return text }
        var out: [UInt8] = []
        var copied = 0
        var index = 0
        let style = self.style
        while index + 14 <= bytes.count {
            guard bytes[index] == UInt8(ascii: "T"), index >= 10 else {
                index += 1
                continue
            }
            let start = index - 10
            let isolated =
                (start == 0 || !Self.isWordByte(bytes[start - 1]))
                && (start + length == bytes.count || !Self.isWordByte(bytes[start + length]))
            if start >= copied, isolated, let date = Self.utcStamp(bytes[start..<start + length]) {
                out += bytes[copied..<start]
                out += Array(style.stamp(date).utf8)
                copied = start + length
                index = copied
            } else {
                index += 1
            }
        }
        guard copied > 0 else { return text }
        out += bytes[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// The moment of "YYYY-MM-DDTHH:MM:SS.mmmZ", every part range-checked; nil when it is not one.
    private static func utcStamp(_ stamp: ArraySlice<UInt8>) -> Date? {
        let bytes = Array(stamp)
        let pattern = Array("dddd-dd-ddTdd:dd:dd.dddZ".utf8)
        for (byte, expected) in zip(bytes, pattern) {
            if expected == UInt8(ascii: "d") {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            } else if byte != expected {
                return nil
            }
        }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(bytes[$1] - UInt8(ascii: "0")) } }
        let (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
        let (hour, minute, second, milliseconds) = (number(11..<13), number(14..<16), number(17..<19), number(20..<23))
        guard year >= 1, (1...12).contains(month), (1...Civil.daysIn(month: month, year: Int64(year))).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Civil.days(year: Int64(year), month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
    }
}
