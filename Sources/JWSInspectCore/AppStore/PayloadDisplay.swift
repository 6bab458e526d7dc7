public import FoundationEssentials

/// A payload read the way an App Store expert would: every field in Apple's
/// documented order with its rendered value (ISO-8601 dates, enum meanings,
/// prices, country names) and flags for what this version does not know.
public struct PayloadDisplay: Sendable {
    /// One displayed field.
    public struct Field: Sendable, Equatable {
        /// Path from the payload root, e.g. ["data", "status"].
        public let path: [String]
        /// The value as signed, as text ("1666615873000", "\"USA\"" without quotes).
        public let raw: String
        /// The readable rendering when it differs from `raw` ("2022-10-24T12:51:13.000Z", "1 — introductory offer").
        public let rendered: String?
        /// A phrase relative to now for dates ("3 years ago", "in 12 days").
        public let relative: String?
        /// Set when something is unknown to this version or odd ("field unknown to this version").
        public let flag: String?

        public var dottedPath: String { path.joined(separator: ".") }
    }

    public let fields: [Field]

    /// Paths of fields this version does not know (Apple adds fields often).
    public var unknownFields: [String] { fields.filter { $0.flag == Self.unknownFieldFlag }.map(\.dottedPath) }
    /// Paths of enumerated fields whose value this version does not know.
    public var unknownValues: [String] { fields.filter { $0.flag == Self.unknownValueFlag }.map(\.dottedPath) }

    static let unknownFieldFlag = "field unknown to this version"
    static let unknownValueFlag = "value unknown to this version"

    /// Renders `payload` of `kind`; relative phrases are measured from `now`, dates written in
    /// `style` (UTC by default).
    public init(kind: PayloadKind, payload: [String: JSONValue], now: Date, style: DateStyle = .utc) {
        var fields: [Field] = []
        let schema = kind.schema
        Self.collect(
            payload, documented: schema.documentedIndex, path: [], flagUnknown: kind != .unknown, now: now,
            style: style, into: &fields)
        self.fields = fields
    }

    private static func collect(
        _ object: [String: JSONValue], documented: [String: Int], path: [String], flagUnknown: Bool,
        now: Date, style: DateStyle, into fields: inout [Field]
    ) {
        // The documented fields present, in documented order, then the others: one lookup per
        // member present, not one per field documented.
        var known: [(place: Int, key: String, value: JSONValue)] = []
        var unknown: [(key: String, number: Int?, value: JSONValue)] = []
        known.reserveCapacity(object.count)
        for (key, value) in object {
            if let place = documented[key] {
                known.append((place, key, value))
            } else {
                // A receipt's undocumented field (`unknown_8`) has its type number, read once.
                let number = key.hasPrefix("unknown_") ? key.split(separator: "_").last.flatMap { Int($0) } : nil
                unknown.append((key, number, value))
            }
        }
        known.sort { $0.place < $1.place }
        // A receipt's undocumented fields by their type number, the others by name.
        unknown.sort {
            if let first = $0.number, let second = $1.number { return first < second }
            return $0.key < $1.key
        }
        for (isKnown, key, value) in known.map({ (true, $0.key, $0.value) })
            + unknown.map({ (false, $0.key, $0.value) })
        {
            let fieldPath = path + [key]
            if case .object(let nested) = value, !nested.isEmpty {
                // A notification's body is in its documented order; other objects by name.
                let nestedOrder = path.isEmpty ? NotificationBody.named(key)?.fieldPlaces ?? [:] : [:]
                if flagUnknown && !isKnown {
                    fields.append(
                        Field(path: fieldPath, raw: "{…}", rendered: nil, relative: nil, flag: unknownFieldFlag))
                }
                collect(
                    nested, documented: nestedOrder, path: fieldPath,
                    flagUnknown: flagUnknown && !nestedOrder.isEmpty, now: now, style: style, into: &fields)
                continue
            }
            var field = render(key, value, in: object, now: now, style: style)
            if flagUnknown && !isKnown {
                field = Field(
                    path: [], raw: field.raw, rendered: field.rendered, relative: field.relative, flag: unknownFieldFlag
                )
            }
            fields.append(
                Field(
                    path: fieldPath, raw: field.raw, rendered: field.rendered, relative: field.relative,
                    flag: field.flag))
        }
    }

    /// Each name's place in `documented`, the first place of a name listed twice.
    static func places(_ documented: [String]) -> [String: Int] {
        var places: [String: Int] = [:]
        places.reserveCapacity(documented.count)
        for (place, name) in documented.enumerated() where places[name] == nil { places[name] = place }
        return places
    }

    /// One member as text: its rendering when there is one, else the raw value (tables use
    /// this for header members, which are not a payload).
    public static func text(
        _ key: String, _ value: JSONValue, in object: [String: JSONValue], now: Date, style: DateStyle = .utc
    ) -> String {
        let field = render(key, value, in: object, now: now, style: style)
        return field.rendered ?? field.raw
    }

    /// Renders one value; `object` is the object holding it (for `currency` beside `price`).
    static func render(
        _ key: String, _ value: JSONValue, in object: [String: JSONValue], now: Date, style: DateStyle = .utc
    ) -> Field {
        let raw = rawText(value)
        func field(_ rendered: String?, relative: String? = nil, flag: String? = nil) -> Field {
            Field(path: [], raw: raw, rendered: rendered == raw ? nil : rendered, relative: relative, flag: flag)
        }

        if PayloadFields.isTimestamp(key) {
            guard let milliseconds = value.numberValue else {
                return field(nil, flag: value == .null ? nil : "expected milliseconds since 1970")
            }
            return timestamp(milliseconds, now: now, style: style, field: field)
        }
        if key == "iat" || key == "exp" || key == "nbf" {
            // JWT times (RFC 7519 NumericDate): seconds, in developer-signed tokens.
            guard let date = DeveloperClaims.date(value) else {
                return field(nil, flag: "expected seconds since 1970")
            }
            return field(style.stamp(date), relative: RelativeTime.phrase(date, now: now))
        }
        if key == "request", case .string(let request) = value, let json = DeveloperClaims.requestText(request) {
            // An Advanced Commerce request: standard base64 of its JSON, shown decoded.
            return field("base64 of " + json)
        }
        switch FieldMeanings.meaning(field: key, value: value) {
        case .known(let meaning): return field("\(raw) — \(meaning)")
        case .unknownValue: return field(nil, flag: unknownValueFlag)
        case .notEnumerated: break
        }
        switch (key, value) {
        case ("in_app", .array(let entries)):
            let text = "\(entries.count) in-app entr\(entries.count == 1 ? "y" : "ies")"
            return Field(path: [], raw: text, rendered: nil, relative: nil, flag: nil)
        case (_, .string(let hex)) where key.hasPrefix("unknown_"):
            // An undocumented receipt field, its value's DER in hex: shown decoded when it is text or a number.
            return field(ReceiptValue(hex: hex)?.shown)
        case ("receipt_type", .string(let type)):
            let meaning = [
                "Production": "App Store", "ProductionSandbox": "Sandbox", "Xcode": "StoreKit Testing in Xcode",
            ]
            guard let environment = meaning[type] else { return field(nil, flag: unknownValueFlag) }
            return field("\(type) — \(environment)")
        case (_, .string(let text)) where key.hasSuffix("_date"):
            // A receipt's dates are RFC 3339 text as signed; empty when not set.
            guard !text.isEmpty else { return field("(empty: not set)") }
            guard let date = ReceiptDate.parse(text) else { return field(nil, flag: "not an RFC 3339 date") }
            return field(nil, relative: RelativeTime.phrase(date, now: now))
        case ("price", .integer(let milliunits)), ("renewalPrice", .integer(let milliunits)):
            return field(Money.format(milliunits: milliunits, currency: object["currency"]?.stringValue))
        case ("revocationPercentage", .integer(let milliPercent)):
            return field(Money.decimal(milliPercent, minimumFractionDigits: 0) + "%")
        case ("storefront", .string(let code)):
            guard let name = Storefronts.countryName(alpha3: code) else {
                return field(nil, flag: "not an ISO 3166-1 alpha-3 country")
            }
            return field("\(code) — \(name)")
        case ("storefrontCountryCodes", .array(let codes)):
            let names = codes.map { code in
                code.stringValue.flatMap { Storefronts.countryName(alpha3: $0) } ?? rawText(code)
            }
            return field("[" + names.joined(separator: ", ") + "]")
        case ("offerPeriod", .string(let period)):
            return field(Duration8601.describe(period).map { "\(period) — \($0)" })
        case (_, .string(let text)) where isCompactJWS(text):
            let nested =
                NotificationBody.nestedTokens.contains { $0.member == key } ? " (decoded and verified as nested)" : ""
            return field("a JWS, \(text.utf8.count) characters\(nested)")
        default:
            return field(nil)
        }
    }

    private static func timestamp(
        _ milliseconds: Double, now: Date, style: DateStyle, field: (String?, String?, String?) -> Field
    ) -> Field {
        // Xcode uses -62135769600000 (year 0001) for "no date"; anything before 1900 is not a real App Store date.
        if milliseconds < -2_208_988_800_000 {
            return field("no date (a year-0001 placeholder, as StoreKit Testing in Xcode writes)", nil, nil)
        }
        guard let date = Timestamp.date(milliseconds: milliseconds) else {
            return field(nil, nil, "not a representable date")
        }
        let fractional = milliseconds.rounded(.towardZero) != milliseconds
        return field(
            style.stamp(date), RelativeTime.phrase(date, now: now),
            fractional ? "fractional milliseconds (StoreKit Testing in Xcode writes these)" : nil)
    }

    /// The value as text: strings bare, everything else as JSON.
    static func rawText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .double(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array(let values): "[" + values.map(rawText).joined(separator: ", ") + "]"
        case .object(let object): object.isEmpty ? "{}" : "{…}"
        }
    }

    static func isCompactJWS(_ text: String) -> Bool {
        InputScanner.looksLikeJWSHeader(Array(text.utf8)) && text.utf8.filter { $0 == UInt8(ascii: ".") }.count == 2
    }
}

/// "in 12 days", "3 years ago".
public enum RelativeTime {
    public static func phrase(_ date: Date, now: Date) -> String {
        let seconds = date.timeIntervalSince(now)
        let magnitude = abs(seconds)
        // Dates reach here range-checked, but a phrase must never trap on any Date.
        guard magnitude.isFinite, magnitude < 1e15 else { return "at an unrepresentable distance from now" }
        let units: [(Double, String)] = [
            (365.25 * 86_400, "year"), (30.44 * 86_400, "month"), (86_400, "day"),
            (3_600, "hour"), (60, "minute"),
        ]
        guard let (size, name) = units.first(where: { magnitude >= $0.0 }) else { return "now" }
        let count = Int((magnitude / size).rounded(.down))
        let amount = "\(count) \(name)\(count == 1 ? "" : "s")"
        return seconds > 0 ? "in \(amount)" : "\(amount) ago"
    }
}

/// Prices in milliunits (9990 = 9.99).
public enum Money {
    /// Currencies without minor units (ISO 4217 exponent 0) that the App Store uses.
    static let zeroDecimalCurrencies: Set<String> = [
        "JPY", "KRW", "CLP", "VND", "ISK", "PYG", "UGX", "XAF", "XOF", "RWF",
    ]

    /// "9.99 USD", "1200 JPY"; without a currency, the amount alone.
    public static func format(milliunits: Int64, currency: String?) -> String {
        let minimum = currency.map { zeroDecimalCurrencies.contains($0) ? 0 : 2 } ?? 0
        let amount = decimal(milliunits, minimumFractionDigits: minimum)
        return currency.map { "\(amount) \($0)" } ?? amount
    }

    /// `thousandths / 1000` in decimal, trailing zeros trimmed down to `minimumFractionDigits`.
    public static func decimal(_ thousandths: Int64, minimumFractionDigits: Int) -> String {
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = thousandths.magnitude
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.count > minimumFractionDigits, fraction.last == "0" { fraction.removeLast() }
        return sign + String(magnitude / 1000) + (fraction.isEmpty ? "" : "." + fraction)
    }
}

/// ISO 8601 durations as Apple uses them for offer periods ("P1M", "P3D", "P1Y").
enum Duration8601 {
    static func describe(_ text: String) -> String? {
        guard text.hasPrefix("P"), !text.contains("T") else { return nil }
        var parts: [String] = []
        var number = ""
        for character in text.dropFirst() {
            if character.isNumber {
                number.append(character)
                continue
            }
            let names: [Character: String] = ["Y": "year", "M": "month", "W": "week", "D": "day"]
            guard let name = names[character], let count = Int(number) else { return nil }
            parts.append("\(count) \(name)\(count == 1 ? "" : "s")")
            number = ""
        }
        return number.isEmpty && !parts.isEmpty ? parts.joined(separator: " ") : nil
    }
}
