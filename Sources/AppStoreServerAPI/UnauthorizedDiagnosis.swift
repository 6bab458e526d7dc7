internal import FoundationEssentials
package import JWSInspectCore

/// What can be said about a 401: the token that was sent (key ID, issuer, bundle ID,
/// lifetime), this machine's clock against the server's `Date`, and Apple's known causes.
package struct UnauthorizedDiagnosis: Sendable, Equatable {
    package let keyID: String
    package let issuerID: String
    package let bundleID: String
    package let lifetime: Int64
    package let environment: ServerEnvironment
    /// This machine's clock minus the server's, in seconds, when the server sent `Date`.
    package let clockSkew: Double?

    /// A skew beyond this many seconds is reported (tokens are judged by Apple's clock).
    package static let reportedSkew: Double = 60

    init(
        token: DeveloperToken.Signed, credentials: Credentials, sentAt: Date, serverDate: Date?,
        environment: ServerEnvironment
    ) {
        keyID = credentials.keyID
        issuerID = credentials.issuerID
        bundleID = credentials.bundleID
        lifetime = Self.lifetime(of: token.claimsJSON) ?? DeveloperToken.defaultLifetime
        self.environment = environment
        clockSkew = serverDate.map { sentAt.timeIntervalSince($0) }
    }

    /// `exp - iat` of the claims sent.
    private static func lifetime(of claims: [UInt8]) -> Int64? {
        guard case .object(let object)? = try? JSONValue.decode(claims), case .integer(let iat) = object["iat"],
            case .integer(let exp) = object["exp"]
        else { return nil }
        return exp - iat
    }

    /// One line: what was sent, what looks wrong, and what else causes a 401; what to try is
    /// worded by `hints` (the command line names its options).
    package func message(_ hints: any HintWording = PlainHints()) -> String {
        var parts = [
            "401 Unauthorized from \(environment.rawValue): Apple refused the bearer token (ES256, kid \(keyID), "
                + "iss \(issuerID), bid \(bundleID), aud appstoreconnect-v1, lifetime \(lifetime / 60) min)"
        ]
        if let clockSkew, abs(clockSkew) > Self.reportedSkew {
            let minutes = Int((abs(clockSkew) / 60).rounded())
            parts.append(
                "this machine's clock is \(minutes) min \(clockSkew > 0 ? "ahead of" : "behind") Apple's (Date header): "
                    + "tokens are judged by Apple's clock, so set the time (NTP)")
        }
        parts.append(
            "check that the key is an In-App Purchase key of the team that owns \(bundleID) (the bundle ID is "
                + "case-sensitive) and that the issuer ID is the one on the App Store Connect keys page")
        if environment == .production {
            parts.append(
                "Production answers 401 until the app has a release in Production: try "
                    + hints.word(.environment(ServerEnvironment.sandbox.rawValue)))
        }
        return parts.joined(separator: "; ")
    }
}
