internal import FoundationEssentials

/// The details of the claims checks (`AudiencePolicy` … `FeatureClaimsPolicy`): the values
/// seen and what Apple requires, worded when read.
enum ClaimDetail: CheckDetail {
    case audience(JSONValue?, kind: PayloadKind)
    case issuer(JSONValue?)
    case bundleID(JSONValue?, kind: PayloadKind)
    case issuedAtMissing(PayloadKind)
    case notSeconds(String, JSONValue)
    case issuedAt(Date, at: Inspection.CheckTime, future: Bool)
    case expiryInStoreKitToken(JSONValue?, kind: PayloadKind)
    case expiryMissing
    case expiry(Date, at: Inspection.CheckTime, lifetime: Double, fromIssue: Bool)
    case nonce(JSONValue?)
    case feature(kind: PayloadKind, problems: [String])

    static var audiences: String { PayloadKind.audiences.map(\.aud).joined(separator: ", ") }

    var text: String {
        switch self {
        case .audience(let value, let kind):
            switch value {
            case .string(let aud)? where kind.isDeveloperSigned: return "aud is \(aud) (\(kind.displayName))"
            case .string(let aud)?:
                return "aud is \"\(Excerpt.of(aud, limit: 40))\", which Apple does not accept; expected one of "
                    + Self.audiences
            case let other?: return "aud is \(other.kindDescription), expected one of \(Self.audiences)"
            case nil: return "no aud; expected one of \(Self.audiences)"
            }
        case .issuer(let value):
            switch value {
            case .string(let issuer)? where !issuer.isEmpty: return "iss is \(Excerpt.of(issuer, limit: 60))"
            case .string?:
                return "iss is empty; expected the issuer ID from App Store Connect (Users and Access > Integrations)"
            case let other?: return "iss is \(other.kindDescription), expected the issuer ID string"
            case nil: return "no iss; expected the issuer ID from App Store Connect (Users and Access > Integrations)"
            }
        case .bundleID(let value, let kind):
            switch value {
            case .string(let bundleID)? where Self.isBundleID(bundleID):
                return "bid is \(Excerpt.of(bundleID, limit: 60))"
            case .string(let bundleID)? where bundleID.isEmpty: return "bid is empty; \(Self.bundleIDWanted(kind))"
            case .string(let bundleID)?:
                return "bid is \"\(Excerpt.of(bundleID, limit: 60))\", not a bundle ID (letters, digits, hyphens and "
                    + "periods only); \(Self.bundleIDWanted(kind))"
            case let other?: return "bid is \(other.kindDescription), expected the bundle ID string"
            case nil: return "no bid; \(Self.bundleIDWanted(kind))"
            }
        case .issuedAtMissing(let kind):
            return "no iat; \(Self.article(kind)) needs one (the App Store computes its expiry from it)"
        case .notSeconds(let claim, let value):
            let text = "\(claim) is \(PayloadDisplay.rawText(value)), expected seconds since 1970 (a NumericDate)"
            // The two mistakes that make one: a string, and the App Store's milliseconds.
            if case .string(let string) = value {
                return text + ": a NumericDate is a JSON number"
                    + (string.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } && !string.isEmpty
                        ? ", not the string of one" : "")
            }
            if let number = value.numberValue, number >= 100_000_000_000, number < 100_000_000_000_000 {
                return text + ": it looks like milliseconds; seconds are \(Int64(number / 1000))"
            }
            return text
        case .issuedAt(let issued, let at, let future):
            let when = "\(ISO8601.string(issued))"
            return future
                ? "iat is \(when), in the future beyond 60 s of clock skew (checked \(at.phrase))"
                : "iat is \(when), not in the future (checked \(at.phrase))"
        case .expiryInStoreKitToken(let value, let kind):
            guard let value else { return "no exp, as Apple requires of \(Self.article(kind))" }
            return "exp is \(PayloadDisplay.rawText(value)): Apple says not to include exp in \(Self.article(kind)), "
                + "\"because including it makes the request fail\""
        case .expiryMissing:
            return "no exp; an App Store Server API token needs one, at most 60 minutes after iat"
        case .expiry(let expires, let at, let lifetime, let fromIssue):
            let from = fromIssue ? "iat" : "the check time (no iat)"
            let minutes = Self.minutes(lifetime)
            if expires <= at.date {
                return "expired: exp is \(ISO8601.string(expires)), checked \(at.phrase)"
            }
            if lifetime > DeveloperClaims.maximumLifetime {
                return "exp is \(ISO8601.string(expires)), \(minutes) after \(from); Apple refuses tokens that "
                    + "expire more than 60 minutes after iat"
            }
            return "exp is \(ISO8601.string(expires)), \(minutes) after \(from), not expired (checked \(at.phrase))"
        case .nonce(let value):
            switch value {
            case .string(let nonce)? where UUID(uuidString: nonce) != nil: return "nonce is \(nonce), a UUID"
            case .string(let nonce)?: return "nonce is \"\(Excerpt.of(nonce, limit: 40))\", expected a UUID"
            case let other?: return "nonce is \(other.kindDescription), expected a UUID string"
            case nil: return "no nonce; Apple requires a one-time UUID"
            }
        case .feature(let kind, let problems):
            return problems.isEmpty
                ? "the claims \(Self.article(kind)) needs are present"
                : problems.joined(separator: "; ") + " (\(Self.article(kind)) needs them)"
        }
    }

    /// Whether `text` can be a bundle ID: not empty, and only the characters Apple allows in
    /// one (A–Z, a–z, 0–9, hyphen and period). `" "` is present, but names no app.
    static func isBundleID(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
    }

    /// What Apple wants in `bid`, and what follows without it.
    static func bundleIDWanted(_ kind: PayloadKind) -> String {
        let what = kind.isDeveloperSigned ? article(kind) : "every token a developer signs"
        let wanted = "Apple requires the app's bundle ID (case-sensitive) in \(what)"
        return kind == .apiToken ? wanted + " and answers 401 without it" : wanted
    }

    /// The kind's name after "a" or "an": "an App Store Server API token", "a promotional offer signature".
    static func article(_ kind: PayloadKind) -> String {
        let name = kind.displayName
        return (name.first.map { "AEIOUaeiou".contains($0) } == true ? "an " : "a ") + name
    }

    /// "5 minutes", "61.5 minutes".
    /// A duration in words, exact: never rounded onto the limit it is compared with (3,601
    /// seconds is "60 minutes 1 second", over Apple's 60 minutes, not "60 minutes").
    static func minutes(_ seconds: Double) -> String {
        func plural(_ count: Int64, _ unit: String) -> String { "\(count) \(unit)\(count == 1 ? "" : "s")" }
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds / 60) minutes" }
        let sign = seconds < 0 ? "-" : ""
        let magnitude = abs(seconds)
        guard magnitude == magnitude.rounded() else {
            return sign + "\(magnitude / 60) minutes (\(magnitude) seconds)"
        }
        let (whole, rest) = Int64(magnitude).quotientAndRemainder(dividingBy: 60)
        if rest == 0 { return sign + plural(whole, "minute") }
        return sign + (whole == 0 ? "" : plural(whole, "minute") + " ") + plural(rest, "second")
    }
}
