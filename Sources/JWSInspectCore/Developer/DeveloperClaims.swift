internal import FoundationEssentials

/// What Apple requires of the claims of a token a developer signs with their own key
/// (`../shared/reference/app-store-server-api.md` A2 and B1), read from a decoded payload.
///
/// JWT times (`iat`, `exp`) are NumericDate: seconds since 1970 (RFC 7519), not the App
/// Store's milliseconds.
enum DeveloperClaims {
    /// Apple: "Tokens that expire more than 60 minutes after the time in `iat` are not valid."
    static let maximumLifetime: Double = 3600
    /// The clock skew allowed for an `iat` ahead of the check time.
    static let allowedSkew: Double = 60

    /// A claim holding seconds since 1970, as a date (nil when absent, not a number, or out of range).
    static func date(_ value: JSONValue?) -> Date? {
        guard let seconds = value?.numberValue, seconds.isFinite, abs(seconds) < 253_402_300_800 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// An Advanced Commerce `request` claim's JSON text, when it is standard base64 of a UTF-8 JSON
    /// object that names no member twice (nil otherwise).
    static func requestText(_ request: String) -> String? {
        guard case .success(let json) = readRequest(request) else { return nil }
        return String(decoding: json, as: UTF8.self)
    }

    /// An Advanced Commerce `request` claim's JSON object, when it is one.
    static func requestObject(_ request: String) -> [String: JSONValue]? {
        guard case .success(let json) = readRequest(request), case .object(let object)? = try? JSONValue.decode(json)
        else { return nil }
        return object
    }

    /// Why an Advanced Commerce `request` claim is not standard base64 of a UTF-8 JSON object
    /// naming no member twice (Apple's server reads it: a member named twice reads two ways).
    static func requestProblem(_ request: String) -> String? {
        guard case .failure(let problem) = readRequest(request) else { return nil }
        return problem.description
    }

    /// A `request` claim's JSON bytes, when they are one object naming no member twice.
    private static func readRequest(_ request: String) -> Result<[UInt8], RequestProblem> {
        guard let data = Data(base64Encoded: request) else { return .failure(.notJSON) }
        let json = Array(data)
        do {
            guard case .object = try JSONValue.decode(json) else { return .failure(.notJSON) }
        } catch let duplicate as DuplicateMember {
            return .failure(.duplicate(duplicate))
        } catch {
            return .failure(.notJSON)
        }
        return .success(json)
    }

    private enum RequestProblem: Error, CustomStringConvertible {
        case notJSON
        case duplicate(DuplicateMember)

        var description: String {
            switch self {
            case .notJSON: "is not standard base64 of a JSON object"
            case .duplicate(let duplicate): "names \(duplicate) in its JSON"
            }
        }
    }

    /// "App Store Server API token for com.example.app, issuer 5f…, expires 2026-12-01T12:05:00Z."
    static func summary(kind: PayloadKind, payload: [String: JSONValue], now: Date) -> String {
        var text = kind.displayName.prefix(1).uppercased() + kind.displayName.dropFirst()
        text += " for \(payload["bid"]?.stringValue ?? "(no bid)")"
        if let product = payload["productId"]?.stringValue { text += ", product \(product)" }
        if let offer = payload["offerIdentifier"]?.stringValue { text += ", offer \(offer)" }
        if case .bool(let allow)? = payload["allowIntroductoryOffer"] {
            text += allow ? ", introductory offer allowed" : ", introductory offer not allowed"
        }
        if let issuer = payload["iss"]?.stringValue { text += ", issuer \(Excerpt.of(issuer, limit: 40))" }
        if let issued = date(payload["iat"]) { text += ", issued \(ISO8601.string(issued))" }
        if let expires = date(payload["exp"]) {
            text += expires <= now ? ", expired \(ISO8601.string(expires))" : ", expires \(ISO8601.string(expires))"
        }
        return text + "."
    }
}
