import Foundation
import JWSInspectCore

/// Why the mock refused a request's bearer token (answered 401, with a plain-text body as Apple's
/// real 401 has).
enum TokenRefusal: String, Sendable, Equatable, CaseIterable {
    /// No `Authorization` field.
    case missingAuthorization
    /// Several `Authorization` fields, or a scheme other than `Bearer` (compared case-insensitively).
    case notBearer
    /// Not three base64url segments, or a header or claims that are not a JSON object.
    case malformed
    /// Header `alg` is not `ES256`.
    case wrongAlgorithm
    /// Header `kid` is not the credentials' key ID.
    case wrongKeyID
    /// Header `typ` is not `JWT` (missing counts as wrong: Apple's documentation and both official
    /// libraries send it).
    case wrongType
    /// The ES256 signature (raw `r || s`) does not verify with the credentials' public key.
    case badSignature
    /// `iss` is not the credentials' issuer ID.
    case wrongIssuer
    /// `aud` is not the string `appstoreconnect-v1`.
    case wrongAudience
    /// `bid` is not the credentials' bundle ID (case-sensitive).
    case wrongBundleID
    /// No numeric `exp`, or an `iat` that is not a number.
    case missingExpiry
    /// `exp` is not after the mock's now.
    case expired
    /// `iat` is more than `MockTokenCheck.allowedClockSkew` after the mock's now.
    case issuedInFuture
    /// `exp` − `iat` is over 3600 s.
    case lifetimeTooLong
    /// `exp` is more than 3600 s after the mock's now ("exp at most 60 minutes ahead").
    case expiresTooFarAhead
}

/// What the token check said about one request.
enum TokenVerdict: Sendable, Equatable, CustomStringConvertible {
    case accepted
    /// Refused: why, and a detail for failure messages (such as the values compared).
    case refused(TokenRefusal, detail: String)

    /// The refusal, or nil when accepted.
    var refusal: TokenRefusal? {
        if case .refused(let refusal, _) = self { return refusal }
        return nil
    }

    var description: String {
        switch self {
        case .accepted: "accepted"
        case .refused(let refusal, let detail): "refused (\(refusal.rawValue)): \(detail)"
        }
    }
}

/// Checks `Authorization: Bearer <JWT>` the way the App Store Server API documents it: header
/// `{"alg":"ES256","kid":KEY_ID,"typ":"JWT"}`, an ES256 signature by the key, claims `iss`, `aud`
/// `appstoreconnect-v1`, `bid`, `exp` in the future and at most 60 minutes after `iat` (when
/// present) and after now, `iat` (when present) not in the future. Numbers may be fractional.
///
/// The checks run in the order of `TokenRefusal`'s cases; the first that fails is the verdict.
struct MockTokenCheck: Sendable {
    /// How far in the future `iat` may be: 60 s.
    static let allowedClockSkew: Double = 60
    /// The longest a token may live: 3600 s.
    static let maximumLifetime: Double = 3600

    var credentials: MockAppStoreServer.Credentials

    /// The verdict on the `Authorization` fields `values`, at `now`.
    func verdict(authorization values: [String], now: Date) -> TokenVerdict {
        func refuse(_ refusal: TokenRefusal, _ detail: String) -> TokenVerdict { .refused(refusal, detail: detail) }
        guard let field = values.first else { return refuse(.missingAuthorization, "no Authorization field") }
        guard values.count == 1 else { return refuse(.notBearer, "\(values.count) Authorization fields") }
        let parts = field.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            return refuse(.notBearer, "the Authorization field is not 'Bearer <token>'")
        }
        let segments = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { return refuse(.malformed, "\(segments.count) segments, not 3") }
        guard let headerBytes = try? Base64URL.decode(Array(segments[0].utf8)),
            let claimsBytes = try? Base64URL.decode(Array(segments[1].utf8)),
            let signature = try? Base64URL.decode(Array(segments[2].utf8))
        else { return refuse(.malformed, "a segment is not base64url") }
        guard let header = Self.object(headerBytes) else {
            return refuse(.malformed, "the header is not a JSON object")
        }
        guard let claims = Self.object(claimsBytes) else {
            return refuse(.malformed, "the claims are not a JSON object")
        }

        let alg = header["alg"] as? String
        guard alg == "ES256" else { return refuse(.wrongAlgorithm, "alg \(alg ?? "missing")") }
        let kid = header["kid"] as? String
        guard kid == credentials.keyID else {
            return refuse(.wrongKeyID, "kid \(kid ?? "missing"), expected \(credentials.keyID)")
        }
        let typ = header["typ"] as? String
        guard typ == "JWT" else { return refuse(.wrongType, "typ \(typ ?? "missing")") }
        let signingInput = Array((segments[0] + "." + segments[1]).utf8)
        if let failure = credentials.publicKey.verifyES256(signature: signature, message: signingInput) {
            return refuse(.badSignature, failure.description)
        }

        let iss = claims["iss"] as? String
        guard iss == credentials.issuerID else {
            return refuse(.wrongIssuer, "iss \(iss ?? "missing"), expected \(credentials.issuerID)")
        }
        let aud = claims["aud"] as? String
        guard aud == "appstoreconnect-v1" else { return refuse(.wrongAudience, "aud \(aud ?? "missing")") }
        let bid = claims["bid"] as? String
        guard bid == credentials.bundleID else {
            return refuse(.wrongBundleID, "bid \(bid ?? "missing"), expected \(credentials.bundleID)")
        }
        guard let exp = Self.number(claims["exp"]) else { return refuse(.missingExpiry, "no numeric exp") }
        let iat = Self.number(claims["iat"])
        if claims["iat"] != nil, iat == nil { return refuse(.missingExpiry, "iat is not a number") }
        let current = now.timeIntervalSince1970
        guard exp > current else { return refuse(.expired, "exp \(exp) is not after now \(current)") }
        if let iat {
            guard iat <= current + Self.allowedClockSkew else {
                return refuse(.issuedInFuture, "iat \(iat) is after now \(current) + \(Self.allowedClockSkew) s")
            }
            guard exp - iat <= Self.maximumLifetime else {
                return refuse(.lifetimeTooLong, "exp - iat = \(exp - iat) s, over \(Self.maximumLifetime) s")
            }
        }
        guard exp - current <= Self.maximumLifetime else {
            return refuse(.expiresTooFarAhead, "exp is \(exp - current) s after now, over \(Self.maximumLifetime) s")
        }
        return .accepted
    }

    /// `bytes` parsed as a JSON object, or nil.
    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// A JSON number (not a boolean) as a Double, or nil.
    static func number(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
        return number.doubleValue
    }

    /// Whether JSONSerialization decoded `true`/`false` (an NSNumber too, of Objective-C type `c`;
    /// JSON numbers come back as `i`, `q` or `d`).
    static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
