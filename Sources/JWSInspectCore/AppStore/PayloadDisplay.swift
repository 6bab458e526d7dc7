package import FoundationEssentials

/// A payload read the way an App Store expert would: every field in Apple's
/// documented order with its rendered value (ISO-8601 dates, enum meanings,
/// prices, country names) and flags for what this version does not know.
package struct PayloadDisplay: Sendable {
    /// One displayed field.
    package struct Field: Sendable, Equatable {
        /// Path from the payload root, e.g. ["data", "status"].
        package let path: [String]
        /// The value as signed, as text ("1666615873000", "\"USA\"" without quotes).
        package let raw: String
        /// The readable rendering when it differs from `raw` ("2022-10-24T12:51:13.000Z", "1 — introductory offer").
        package let rendered: String?
        /// A phrase relative to now for dates ("3 years ago", "in 12 days"), worded when read
        /// (tables show it, JSON does not).
        package var relative: String? { relativeDate.map { RelativeTime.phrase($0, now: now) } }
        /// Set when something is unknown to this version or odd ("field unknown to this version").
        package let flag: String?
        /// The date `relative` is about, and the moment it is relative to.
        let relativeDate: Date?
        let now: Date

        init(path: [String], _ rendering: Rendering, now: Date, flag: String?) {
            self.path = path
            raw = rendering.raw
            rendered = rendering.rendered
            relativeDate = rendering.relativeDate
            self.now = now
            self.flag = flag
        }

        package var dottedPath: String { PayloadDisplay.dotted(path) }
    }

    package let fields: [Field]

    /// Paths of fields this version does not know (Apple adds fields often).
    package var unknownFields: [String] { fields.filter { $0.flag == Self.unknownFieldFlag }.map(\.dottedPath) }
    /// Paths of enumerated fields whose value this version does not know.
    package var unknownValues: [String] { fields.filter { $0.flag == Self.unknownValueFlag }.map(\.dottedPath) }

    static let unknownFieldFlag = "field unknown to this version"
    /// The deepest object or array shown member by member; deeper ones are shown as signed.
    static let maximumDepth = 8
    /// The elements of an array of objects shown member by member; the others are counted.
    static let maximumElements = 100

    /// `path` written as jq writes it: `advancedCommerceInfo.items[0].SKU`.
    static func dotted(_ path: [String]) -> String {
        var text = ""
        for component in path {
            if !text.isEmpty, component.utf8.first != UInt8(ascii: "[") { text += "." }
            text += component
        }
        return text
    }
    static let unknownValueFlag = "value unknown to this version"

    /// A field's value rendered, before it has a place.
    struct Rendering {
        let raw: String
        /// The rendering, when it is text (not a UTC date stamp) that differs from `raw`.
        private let text: String?
        /// The date whose UTC stamp ("2022-11-04T11:01:25.499Z") is the rendering: kept as the
        /// date, so that JSON output writes it without making its text first.
        let stamp: Date?
        let relativeDate: Date?
        let flag: String?

        /// The readable rendering when it differs from `raw`.
        var rendered: String? { stamp.map { ISO8601.string($0) } ?? text }

        /// `raw` with `rendered` when they differ.
        init(raw: String, rendered: String? = nil, relativeDate: Date? = nil, flag: String? = nil) {
            self.raw = raw
            text = rendered == raw ? nil : rendered
            stamp = nil
            self.relativeDate = relativeDate
            self.flag = flag
        }

        /// `raw` rendered as `date` written in `style` (a date stamp never reads as a number does).
        init(raw: String, date: Date, style: DateStyle, relativeDate: Date?, flag: String? = nil) {
            self.raw = raw
            if style.isUTC {
                text = nil
                stamp = date
            } else {
                text = style.stamp(date)
                stamp = nil
            }
            self.relativeDate = relativeDate
            self.flag = flag
        }
    }

    /// Renders `payload` of `kind`; relative phrases are measured from `now`, dates written in
    /// `style` (UTC by default).
    package init(kind: PayloadKind, payload: [String: JSONValue], now: Date, style: DateStyle = .utc) {
        var collector = Collector(now: now)
        Self.walk(
            payload, documented: Self.documentedIndex(kind), parent: [], flagUnknown: kind != .unknown,
            context: WalkContext(now: now, style: style, currency: nil, depth: 0), visitor: &collector)
        fields = collector.fields
    }

    /// Writes the `display` object JSON output shows for `payload` of `kind` straight into
    /// `stream` (what writing `PayloadDisplay(kind:payload:now:)`'s fields as a tree writes,
    /// dates in UTC), making no field: a result in JSON needs the text alone.
    ///
    /// - Returns: `unknownFields` and `unknownValues` of that display.
    package static func write(
        kind: PayloadKind, payload: [String: JSONValue], now: Date, into stream: inout JSONStream
    ) -> (unknownFields: [String], unknownValues: [String]) {
        var writer = StreamWriter(stream: stream)
        writer.stream.openObject()
        walk(
            payload, documented: Self.documentedIndex(kind), parent: [], flagUnknown: kind != .unknown,
            context: WalkContext(now: now, style: .utc, currency: nil, depth: 0), visitor: &writer)
        writer.stream.closeObject()
        stream = writer.stream
        return (writer.unknownFields, writer.unknownValues)
    }

    /// What a walk over a payload meets, in display order: the documented members in documented
    /// order, then the others; a non-empty object's members, or an array of objects' elements
    /// (keyed `[0]`, `[1]`, …), in its place, between `enter` and `leave`.
    protocol Visitor {
        /// A non-empty object, or an array holding objects, at `key` (flagged when it is a field
        /// unknown to this version).
        mutating func enter(parent: [String], key: String, isArray: Bool, flaggedUnknown: Bool)
        mutating func leave()
        mutating func field(parent: [String], key: String, _ name: FieldName, _ rendering: Rendering, flag: String?)
    }

    /// Makes the fields (`init`).
    struct Collector: Visitor {
        let now: Date
        var fields: [Field] = []

        mutating func enter(parent: [String], key: String, isArray: Bool, flaggedUnknown: Bool) {
            if flaggedUnknown {
                fields.append(
                    Field(
                        path: parent + [key], Rendering(raw: isArray ? "[…]" : "{…}"), now: now, flag: unknownFieldFlag)
                )
            }
        }

        mutating func leave() {}

        mutating func field(parent: [String], key: String, _ name: FieldName, _ rendering: Rendering, flag: String?) {
            fields.append(Field(path: parent + [key], rendering, now: now, flag: flag))
        }
    }

    /// Writes the display object (`write`): a field as its text (rendered, else raw), an object
    /// as an object of its fields and an array of objects as an array, which replace the text
    /// they would have.
    struct StreamWriter: Visitor {
        var stream: JSONStream
        var unknownFields: [String] = []
        var unknownValues: [String] = []
        /// Whether each container open is an array (whose members are written without keys).
        private var arrays: [Bool] = []

        init(stream: JSONStream) { self.stream = stream }

        mutating func enter(parent: [String], key: String, isArray: Bool, flaggedUnknown: Bool) {
            if flaggedUnknown { unknownFields.append(dotted(parent + [key])) }
            if arrays.last == true { stream.element() } else { stream.key(data: key) }
            if isArray { stream.openArray() } else { stream.openObject() }
            arrays.append(isArray)
        }

        mutating func leave() {
            if arrays.removeLast() { stream.closeArray() } else { stream.closeObject() }
        }

        mutating func field(parent: [String], key: String, _ name: FieldName, _ rendering: Rendering, flag: String?) {
            if flag == unknownFieldFlag {
                unknownFields.append(dotted(parent + [key]))
            } else if flag == unknownValueFlag {
                unknownValues.append(dotted(parent + [key]))
            }
            if arrays.last == true {
                stream.element()
            } else if name.isPlain {
                stream.key(plain: key)
            } else {
                stream.key(data: key)
            }
            if let stamp = rendering.stamp {
                stream.date(stamp)
            } else {
                stream.string(rendering.rendered ?? rendering.raw)
            }
        }
    }

    /// What a walk carries down: the clock and zone dates are shown in, the currency of the
    /// nearest object that names one (a price's), and how deep it is.
    struct WalkContext {
        let now: Date
        let style: DateStyle
        let currency: String?
        let depth: Int

        func entering(_ object: [String: JSONValue]) -> WalkContext {
            WalkContext(now: now, style: style, currency: object["currency"]?.stringValue ?? currency, depth: depth + 1)
        }
    }

    /// - Parameter documented: the members Apple documents in `object`, each with the shape of
    ///   the object (or objects) it holds, when Apple defines one: an undocumented member of an
    ///   object Apple defines is flagged at any depth, as the payload's own are.
    private static func walk<V: Visitor>(
        _ object: [String: JSONValue], documented: [String: Documented], parent: [String], flagUnknown: Bool,
        context: WalkContext, visitor: inout V
    ) {
        // The documented fields present, in documented order, then the others: one lookup per
        // member present, not one per field documented.
        var known: [(documented: Documented, key: String, value: JSONValue)] = []
        var unknown: [(key: String, number: Int?, value: JSONValue)] = []
        known.reserveCapacity(object.count)
        for (key, value) in object {
            if let documented = documented[key] {
                known.append((documented, key, value))
            } else {
                // A receipt's undocumented field (`unknown_8`) has its type number, read once.
                let number = key.hasPrefix("unknown_") ? key.split(separator: "_").last.flatMap { Int($0) } : nil
                unknown.append((key, number, value))
            }
        }
        known.sort { $0.documented.place < $1.documented.place }
        // A receipt's undocumented fields by their type number, the others by name.
        unknown.sort {
            if let first = $0.number, let second = $1.number { return first < second }
            return $0.key < $1.key
        }
        let inside = context.entering(object)
        let currency = object["currency"]?.stringValue ?? context.currency
        for (documented, key, value) in known {
            member(
                key, value, name: documented.name, shape: documented.shape, isArray: documented.isArray,
                isKnown: true, parent: parent, flagUnknown: flagUnknown, currency: currency, context: inside,
                visitor: &visitor)
        }
        for (key, _, value) in unknown {
            member(
                key, value, name: FieldName(key), shape: nil, isArray: false, isKnown: false, parent: parent,
                flagUnknown: flagUnknown, currency: currency, context: inside, visitor: &visitor)
        }
    }

    /// One member: an object or an array of objects walked in its place (to `maximumDepth`),
    /// any other value rendered.
    private static func member<V: Visitor>(
        _ key: String, _ value: JSONValue, name: FieldName, shape: Shape?, isArray: Bool, isKnown: Bool,
        parent: [String], flagUnknown: Bool, currency: String?, context: WalkContext, visitor: inout V
    ) {
        let flaggedUnknown = flagUnknown && !isKnown
        // What the members of an object of a documented shape are checked against; an object
        // Apple does not define has its members by name, unflagged.
        let members = shape?.members ?? [:]
        let flagInside = flagUnknown && shape != nil
        let deep = context.depth >= maximumDepth
        switch value {
        case .object(let nested) where !nested.isEmpty && !deep && !(shape != nil && isArray):
            visitor.enter(parent: parent, key: key, isArray: false, flaggedUnknown: flaggedUnknown)
            walk(
                nested, documented: members, parent: parent + [key], flagUnknown: flagInside, context: context,
                visitor: &visitor)
            visitor.leave()
            return
        case .array(let elements)
        where !deep && name.special != .inApp && (shape != nil && isArray || elements.contains(where: \.isObject)):
            guard !elements.isEmpty else { break }
            visitor.enter(parent: parent, key: key, isArray: true, flaggedUnknown: flaggedUnknown)
            let path = parent + [key]
            for (index, element) in elements.prefix(maximumElements).enumerated() {
                let elementKey = "[\(index)]"
                if case .object(let nested) = element {
                    visitor.enter(parent: path, key: elementKey, isArray: false, flaggedUnknown: false)
                    walk(
                        nested, documented: members, parent: path + [elementKey], flagUnknown: flagInside,
                        context: context, visitor: &visitor)
                    visitor.leave()
                } else {
                    visitor.field(
                        parent: path, key: elementKey, name, Rendering(raw: rawText(element)),
                        flag: flagInside ? "expected an object" : nil)
                }
            }
            if elements.count > maximumElements {
                let more = elements.count - maximumElements
                visitor.field(
                    parent: path, key: "[\(maximumElements)…]",
                    name, Rendering(raw: "\(more) more element\(more == 1 ? "" : "s") not shown (see the payload)"),
                    flag: nil)
            }
            visitor.leave()
            return
        default:
            break
        }
        let rendering = render(key, value, name: name, currency: currency, style: context.style)
        let flag: String? =
            if flaggedUnknown {
                unknownFieldFlag
            } else if deep, value.isContainer {
                "nested deeper than \(maximumDepth) levels: shown as signed"
            } else if flagUnknown, shape != nil, value != .null, isArray ? !value.isArray : !value.isObject {
                isArray ? "expected an array of objects" : "expected an object"
            } else {
                rendering.flag
            }
        visitor.field(parent: parent, key: key, name, rendering, flag: flag)
    }

    /// A documented field's place in its kind's order, with what its name means for rendering:
    /// one lookup of a member's name finds both.
    struct Documented: Sendable {
        let place: Int
        let name: FieldName
        /// The object it holds, when Apple's models define one (or each object of the array it
        /// holds, when `isArray`).
        var shape: Shape?
        var isArray = false
    }

    /// Each kind's documented fields, placed (`places`): each made when a payload of its kind is
    /// first shown, never in a run that shows none (`--quiet`), and only its own kind's for one
    /// token (a static constant each: lazily made, once, without a lock).
    static func documentedIndex(_ kind: PayloadKind) -> [String: Documented] {
        switch kind {
        case .transaction: Indexes.transaction
        case .renewalInfo: Indexes.renewalInfo
        case .notification: Indexes.notification
        case .appTransaction: Indexes.appTransaction
        case .realtimeRequest: Indexes.realtimeRequest
        case .apiToken: Indexes.apiToken
        case .promotionalOffer: Indexes.promotionalOffer
        case .introductoryOfferEligibility: Indexes.introductoryOfferEligibility
        case .advancedCommerceRequest: Indexes.advancedCommerceRequest
        case .receipt: Indexes.receipt
        case .transactionReceipt: Indexes.transactionReceipt
        case .realtimeResponse: Indexes.realtimeResponse
        case .unknown: Indexes.unknown
        }
    }

    private enum Indexes {
        static let transaction = places(PayloadKind.transaction)
        static let renewalInfo = places(PayloadKind.renewalInfo)
        static let notification = places(PayloadKind.notification)
        static let appTransaction = places(PayloadKind.appTransaction)
        static let realtimeRequest = places(PayloadKind.realtimeRequest)
        static let apiToken = places(PayloadKind.apiToken)
        static let promotionalOffer = places(PayloadKind.promotionalOffer)
        static let introductoryOfferEligibility = places(PayloadKind.introductoryOfferEligibility)
        static let advancedCommerceRequest = places(PayloadKind.advancedCommerceRequest)
        static let receipt = places(PayloadKind.receipt)
        static let transactionReceipt = places(PayloadKind.transactionReceipt)
        static let realtimeResponse = places(PayloadKind.realtimeResponse)
        static let unknown = places(PayloadKind.unknown)

        /// `kind`'s documented fields placed, each object Apple defines with its shape.
        private static func places(_ kind: PayloadKind) -> [String: Documented] {
            var places = PayloadDisplay.places(kind.schema.documentedFields)
            for (key, shape) in shapes(kind) { places[key]?.shape = shape }
            return places
        }
    }

    /// Each name's place in `documented`, the first place of a name listed twice.
    static func places(_ documented: [String]) -> [String: Documented] {
        var places: [String: Documented] = [:]
        places.reserveCapacity(documented.count)
        for (place, name) in documented.enumerated() where places[name] == nil {
            places[name] = Documented(place: place, name: FieldName(name))
        }
        return places
    }

    /// One member as text: its rendering when there is one, else the raw value (tables use
    /// this for header members, which are not a payload).
    package static func text(
        _ key: String, _ value: JSONValue, in object: [String: JSONValue], now: Date, style: DateStyle = .utc
    ) -> String {
        let rendering = render(
            key, value, name: FieldName(key), currency: object["currency"]?.stringValue, style: style)
        return rendering.rendered ?? rendering.raw
    }

    /// Renders one value; `currency` is the nearest one named around it (a price's). What its
    /// name means for rendering is worked out once per name (`FieldName`).
    static func render(
        _ key: String, _ value: JSONValue, name: FieldName, currency: String?, style: DateStyle = .utc
    ) -> Rendering {
        let raw = rawText(value)
        if name.isTimestamp {
            guard let milliseconds = value.numberValue else {
                return Rendering(raw: raw, flag: value == .null ? nil : "expected milliseconds since 1970")
            }
            return timestamp(milliseconds, raw: raw, style: style)
        }
        if name.isJWTTime {
            // JWT times (RFC 7519 NumericDate): seconds, in developer-signed tokens.
            guard let date = DeveloperClaims.date(value) else {
                return Rendering(raw: raw, flag: "expected seconds since 1970")
            }
            return Rendering(raw: raw, date: date, style: style, relativeDate: date)
        }
        if name.isRequest, case .string(let request) = value, let json = DeveloperClaims.requestText(request) {
            // An Advanced Commerce request: standard base64 of its JSON, shown decoded.
            return Rendering(raw: raw, rendered: "base64 of " + json)
        }
        switch name.enumeration {
        case .integers(let table):
            // A documented value's rendering is made once, with its table ("1 — introductory offer").
            guard case .integer(let number) = value, let rendered = table[number] else {
                return Rendering(raw: raw, flag: unknownValueFlag)
            }
            return Rendering(raw: raw, rendered: rendered)
        case .strings(let table):
            guard case .string(let text) = value, let ascii = Exact.ascii(text), let rendered = table[ascii] else {
                return Rendering(raw: raw, flag: unknownValueFlag)
            }
            return Rendering(raw: raw, rendered: rendered)
        case .none:
            break
        }
        switch (name.special, value) {
        case (.inApp, .array(let entries)):
            return Rendering(raw: "\(entries.count) in-app entr\(entries.count == 1 ? "y" : "ies")")
        case (.undocumentedReceiptField, .string(let hex)):
            // An undocumented receipt field, its value's DER in hex: shown decoded when it is text or a number.
            return Rendering(raw: raw, rendered: ReceiptValue(hex: hex)?.shown)
        case (.receiptType, .string(let type)):
            guard let environment = receiptTypes[type] else { return Rendering(raw: raw, flag: unknownValueFlag) }
            return Rendering(raw: raw, rendered: "\(type) — \(environment)")
        case (.millisecondsText, .string(let text)):
            return millisecondsText(text, raw: raw, strict: name.isMillisecondsName, style: style)
        case (.receiptDate, .string(let text)):
            // A receipt's dates are RFC 3339 text as signed; empty when not set.
            guard !text.isEmpty else { return Rendering(raw: raw, rendered: "(empty: not set)") }
            guard let date = ReceiptDate.parse(text) else {
                return Rendering(raw: raw, flag: "not an RFC 3339 date")
            }
            return Rendering(raw: raw, relativeDate: date)
        case (.price, .integer(let milliunits)):
            return Rendering(
                raw: raw, rendered: Money.format(milliunits: milliunits, currency: currency))
        case (.percentage, .integer(let milliPercent)):
            return Rendering(raw: raw, rendered: Money.decimal(milliPercent, minimumFractionDigits: 0) + "%")
        case (.rate, .string(let fraction)):
            guard let percent = Money.percent(fraction: fraction) else {
                return Rendering(raw: raw, flag: "expected a decimal fraction (0.15 for 15%)")
            }
            return Rendering(raw: raw, rendered: "\(percent)%")
        case (.storefront, .string(let code)):
            guard let rendered = Storefronts.rendered(alpha3: code) else {
                return Rendering(raw: raw, flag: "not an ISO 3166-1 alpha-3 country")
            }
            return Rendering(raw: raw, rendered: rendered)
        case (.storefrontCodes, .array(let codes)):
            let names = codes.map { code in
                code.stringValue.flatMap { Storefronts.countryName(alpha3: $0) } ?? rawText(code)
            }
            return Rendering(raw: raw, rendered: "[" + names.joined(separator: ", ") + "]")
        case (.offerPeriod, .string(let period)):
            return Rendering(raw: raw, rendered: Duration8601.describe(period).map { "\(period) — \($0)" })
        case (_, .string(let text)) where isCompactJWS(text):
            let nested =
                NotificationBody.nestedTokens.contains { $0.member == key } ? " (decoded and verified as nested)" : ""
            return Rendering(raw: raw, rendered: "a JWS, \(text.utf8.count) characters\(nested)")
        default:
            return Rendering(raw: raw)
        }
    }

    /// What a receipt's `receipt_type` means.
    private static let receiptTypes = [
        "Production": "App Store", "ProductionSandbox": "Sandbox", "Xcode": "StoreKit Testing in Xcode",
    ]

    private static func timestamp(_ milliseconds: Double, raw: String, style: DateStyle) -> Rendering {
        // Xcode uses -62135769600000 (year 0001) for "no date"; anything before 1900 is not a real App Store date.
        if milliseconds < -2_208_988_800_000 {
            return Rendering(
                raw: raw, rendered: "no date (a year-0001 placeholder, as StoreKit Testing in Xcode writes)")
        }
        guard let date = Timestamp.date(milliseconds: milliseconds) else {
            return Rendering(raw: raw, flag: "not a representable date")
        }
        let fractional = milliseconds.rounded(.towardZero) != milliseconds
        return Rendering(
            raw: raw, date: date, style: style, relativeDate: date,
            flag: fractional ? "fractional milliseconds (StoreKit Testing in Xcode writes these)" : nil)
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
        // The two dots first: most strings have none, and counting them copies nothing.
        var dots = 0
        for byte in text.utf8 where byte == UInt8(ascii: ".") { dots += 1 }
        return dots == 2 && InputScanner.looksLikeJWSHeader(Array(text.utf8))
    }
}

extension JSONValue {
    fileprivate var isObject: Bool {
        if case .object = self { true } else { false }
    }
    fileprivate var isArray: Bool {
        if case .array = self { true } else { false }
    }
    fileprivate var isContainer: Bool { isObject || isArray }
}

/// "in 12 days", "3 years ago".
package enum RelativeTime {
    package static func phrase(_ date: Date, now: Date) -> String {
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
package enum Money {
    /// Currencies without minor units (ISO 4217 exponent 0) that the App Store uses.
    static let zeroDecimalCurrencies: Set<String> = [
        "JPY", "KRW", "CLP", "VND", "ISK", "PYG", "UGX", "XAF", "XOF", "RWF",
    ]

    /// "9.99 USD", "1200 JPY"; without a currency, the amount alone.
    package static func format(milliunits: Int64, currency: String?) -> String {
        let minimum = currency.map { zeroDecimalCurrencies.contains($0) ? 0 : 2 } ?? 0
        let amount = decimal(milliunits, minimumFractionDigits: minimum)
        return currency.map { "\(amount) \($0)" } ?? amount
    }

    /// A decimal fraction as a percentage: "0.15" is "15", "0.0825" is "8.25"; nil for anything
    /// but digits with one point (at most 12 digits after it).
    package static func percent(fraction text: String) -> String? {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 6,
            parts.allSatisfy({ $0.allSatisfy { (0x30...0x39).contains($0) } })
        else { return nil }
        var digits = Array(whole)
        var fraction = parts.count == 2 ? Array(parts[1]) : []
        guard fraction.count <= 12 else { return nil }
        // Times 100: two digits move from the fraction to the whole.
        while fraction.count < 2 { fraction.append(UInt8(ascii: "0")) }
        digits += fraction.prefix(2)
        fraction.removeFirst(2)
        while digits.count > 1, digits.first == UInt8(ascii: "0") { digits.removeFirst() }
        while fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
        let shown = String(decoding: digits, as: UTF8.self)
        return fraction.isEmpty ? shown : shown + "." + String(decoding: fraction, as: UTF8.self)
    }

    /// `thousandths / 1000` in decimal, trailing zeros trimmed down to `minimumFractionDigits`.
    package static func decimal(_ thousandths: Int64, minimumFractionDigits: Int) -> String {
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

/// What a payload member's name means for rendering its value, worked out from the name once
/// (for every name Apple documents, when first asked) instead of for every value: whether it
/// holds a timestamp or JWT time, its enumeration with each documented value's rendering made
/// already, and which of the special renderings its values get. A class: a field's knowledge
/// is handed around by reference, not copied with its tables.
final class FieldName: Sendable {
    enum Enumeration: Sendable {
        case none
        /// Each documented value's rendering: "1 — introductory offer".
        case integers([Int64: String])
        /// Each documented value's rendering: "PURCHASED — bought by this customer".
        case strings([String: String])
    }

    /// A rendering some names' values get, in the order `render` tries them for a value of
    /// that type (a name gets the first that applies).
    enum Special: Sendable {
        case none, inApp, undocumentedReceiptField, receiptType, receiptDate, price, percentage, storefront
        case storefrontCodes, offerPeriod, rate
        /// A StoreKit 1 transaction receipt's date in milliseconds, as text.
        case millisecondsText
    }

    let isTimestamp: Bool
    /// Whether the name is printable ASCII with no quote or backslash: written as it is.
    let isPlain: Bool
    let isJWTTime: Bool
    let isRequest: Bool
    /// Whether the name ends in `-ms` (a StoreKit 1 transaction receipt's milliseconds).
    let isMillisecondsName: Bool
    let enumeration: Enumeration
    let special: Special

    /// The knowledge of `key` in an object Apple's models define (`PayloadDisplay.Shape`):
    /// `enumeration` and `special` as that object says, not as the name means in a payload.
    init(_ key: String, _ enumeration: Enumeration, _ special: Special, timestamp: Bool? = nil) {
        isTimestamp = timestamp ?? PayloadFields.isTimestamp(key)
        isPlain = Self.isPlain(key)
        isJWTTime = false
        isRequest = false
        isMillisecondsName = false
        self.enumeration = enumeration
        self.special = special
    }

    /// Each value's rendering made once: "P1M — every month".
    static func strings(_ table: [String: String]) -> Enumeration {
        .strings(table.reduce(into: [:]) { $0[$1.key] = "\($1.key) — \($1.value)" })
    }

    static func integers(_ table: [Int64: String]) -> Enumeration {
        .integers(table.reduce(into: [:]) { $0[$1.key] = "\($1.key) — \($1.value)" })
    }

    private static func isPlain(_ key: String) -> Bool {
        key.utf8.allSatisfy { (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    /// The knowledge of `key`. A documented name's is made once, with its place
    /// (`PayloadDisplay.documentedIndex`); any other's (a name no kind documents) when met.
    init(_ key: String) {
        isTimestamp = PayloadFields.isTimestamp(key)
        isPlain = Self.isPlain(key)
        isJWTTime = key == "iat" || key == "exp" || key == "nbf"
        isRequest = key == "request"
        isMillisecondsName = key.hasSuffix("-ms")
        if let table = FieldMeanings.integerEnums[key] {
            enumeration = Self.integers(table)
        } else if let table = FieldMeanings.stringEnums[key] {
            enumeration = Self.strings(table)
        } else {
            enumeration = .none
        }
        special =
            switch key {
            case "in_app": .inApp
            case _ where key.hasSuffix("-ms") || key == "expires-date": .millisecondsText
            case _ where key.hasPrefix("unknown_"): .undocumentedReceiptField
            case "receipt_type": .receiptType
            case _ where key.hasSuffix("_date"): .receiptDate
            case "price", "renewalPrice": .price
            case "revocationPercentage": .percentage
            case "storefront": .storefront
            case "storefrontCountryCodes": .storefrontCodes
            case "offerPeriod": .offerPeriod
            default: .none
            }
    }
}
