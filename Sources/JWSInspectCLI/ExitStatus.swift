internal import JWSInspectCore

/// jwsinspect's documented exit statuses: this table is the one `--help`, the man page and
/// the README show (a test compares the README's with it).
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case invalidSignature = 1
    case invalidChain = 2
    case wrongEnvironment = 3
    case wrongApp = 4
    case malformed = 5
    case inactive = 6
    case invalidClaims = 7
    case notFound = 8
    case anomaly = 9
    case unverifiable = 10
    case usage = 64
    case unreadable = 66
    case unavailable = 69
    case software = 70
    case ioError = 74
    case tryAgainLater = 75
    case unauthorized = 77
    case fetchMissing = 127

    init(_ status: Status) {
        switch status {
        case .valid, .unverified: self = .success
        case .invalidSignature: self = .invalidSignature
        case .invalidChain: self = .invalidChain
        case .wrongEnvironment: self = .wrongEnvironment
        case .wrongApp: self = .wrongApp
        case .malformed: self = .malformed
        case .inactive: self = .inactive
        case .invalidClaims: self = .invalidClaims
        case .revocationUnavailable: self = .tryAgainLater
        case .unverifiable: self = .unverifiable
        }
    }

    /// What the status means, as documentation says it.
    var meaning: String {
        switch self {
        case .success: "every JWS verified and met every expectation (or --no-verify)"
        case .invalidSignature:
            "invalid signature: the signature does not verify, is empty, or alg is not ES256 (a JWT from another issuer)"
        case .invalidChain:
            "invalid certificate chain: no or short x5c, untrusted root, missing Apple OID, certificate not valid at the check time"
        case .wrongEnvironment: "environment differs from --environment"
        case .wrongApp: "bundle ID, app Apple ID, account token or device verification differs (or is absent)"
        case .malformed:
            "malformed input: no JWS found, undecodable segments, a header or payload that is not RFC 8259 JSON in UTF-8, "
                + "a JSON object naming a member twice (header, payload or input document), a token over 1 MiB, a record over 64 MiB, a receipt that is not a valid receipt or over its limits, "
                + "--exact: an input that is not exactly one JWS, webhook body, receipt, transaction receipt or realtime response"
        case .inactive:
            "--require-active: no access at the access time: the model's state is not active or "
                + "billing-grace-period (revoked or cancelled, expired, billing retry, upgraded, not yet purchased, not "
                + "an entitlement: an app transaction, renewal info alone, a consumable; undecided: facts missing, "
                + "unreadable or contradicting Apple's status; not tied to the customer asked about)"
        case .invalidClaims:
            "a developer-signed token's claims are invalid: expired, exp more than 60 minutes after iat, iat in the "
                + "future, missing or other aud, missing iss or bid, exp in an offer token, a nonce that is not a UUID, "
                + "an Advanced Commerce request Apple's request model refuses, a realtime response Apple's "
                + "Retention Messaging model refuses"
        case .notFound:
            "fetch: nothing found: the ID is unknown in every environment asked, order status 1 (invalid), an "
                + "empty history, no refunds, subscriptions or notifications; or an answer none of whose authentic "
                + "transactions is tied to the ID asked about (fetch transaction, subscriptions, history: another "
                + "customer's answer)"
        case .unavailable:
            "fetch: the App Store Server API refused the request (a 4xx other than 401, with its errorCode), or its "
                + "answer is unusable (not one JSON object, a member named twice, over 16 MiB, a Content-Encoding "
                + "other than one gzip, a redirect, pages that do not add up), or its TLS certificate is not trusted"
        case .software:
            "OpenSSL did not make a key, a certificate or a signature: mint's test data, sign's token or signature, "
                + "fetch's bearer token (the message names the call; a broken OpenSSL installation)"
        case .tryAgainLater:
            "try again later: fetch: the API is unreachable, timed out (--timeout bounds the whole request), or "
                + "answered 429 or 5xx after every retry; --check-revocation: revocation could not be checked (an "
                + "OCSP responder unreachable or over --timeout, or answering unsigned, stale or unknown)"
        case .unauthorized:
            "fetch: 401, the API refused the bearer token (the message says why it may be; Production answers 401 "
                + "until the app has a Production release)"
        case .fetchMissing:
            "fetch: jwsinspect-fetch, the program that sends fetch's requests, is not installed beside jwsinspect"
        case .anomaly:
            "timeline --fail-on-anomaly: every item verified and the log has an anomaly (duplicate, conflict, "
                + "out-of-order, refund-without-purchase, gap, missed)"
        case .unverifiable:
            "a StoreKit 1 transaction receipt: decoded, but signed in a format nothing here verifies; verify its "
                + "transaction through Apple with jwsinspect fetch transaction ID"
        case .usage:
            "usage: unknown option or bad option value (--at or --access-at outside years 0001 to 9999), a --root "
                + "file without a usable certificate"
        case .unreadable: "an input file, standard input (closed) or a --root file cannot be read"
        case .ioError:
            "output cannot be written: a full disk, a closed standard output (a closed pipe ends quietly with 141), a "
                + "folder that is not empty (mint ca, mint suite: give --force)"
        }
    }
}
