import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI

/// A fresh App Store Connect In-App Purchase key for tests of the App Store Server API: the
/// PKCS#8 PEM (what an `AuthKey_<KEYID>.p8` holds), the loaded `PrivateKey`, the key ID, issuer
/// ID and bundle ID, the `MockAppStoreServer.Credentials` that accept its tokens, and tokens.
struct MockAPIKey: Sendable {
    /// Apple's documentation's example key ID.
    static let defaultKeyID = "2X9R4HXF34"
    /// An issuer ID shaped like App Store Connect's.
    static let defaultIssuerID = "57246542-96fe-1a63-e053-0824d011072a"

    let keyID: String
    let issuerID: String
    let bundleID: String
    /// `-----BEGIN PRIVATE KEY-----` (PKCS#8), EC P-256.
    let pem: String
    let privateKey: PrivateKey

    /// Generates a new P-256 key.
    init(
        keyID: String = defaultKeyID, issuerID: String = defaultIssuerID, bundleID: String = TestPayloads.bundleId
    ) {
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
        pem = TestKey.p256().privateKeyPEM
        // A PEM TestKey just wrote is a P-256 PKCS#8 key: failing to load it is a bug.
        guard let key = try? KeyFile(bytes: Array(pem.utf8), path: "AuthKey_\(keyID).p8").privateKey else {
            preconditionFailure("MockAPIKey: KeyFile did not load TestKey's PEM")
        }
        privateKey = key
    }

    /// The credentials a mock needs to accept this key's tokens.
    var credentials: MockAppStoreServer.Credentials {
        MockAppStoreServer.Credentials(
            keyID: keyID, issuerID: issuerID, bundleID: bundleID, publicKey: privateKey.publicKey)
    }

    /// A valid API token as Apple's libraries make them: `iat` = `issuedAt` (whole seconds),
    /// `exp` = `iat` + `lifetime` seconds.
    func token(issuedAt: Date, lifetime: Int64 = DeveloperToken.defaultLifetime) -> String {
        let claims = DeveloperToken.claims(
            .apiToken(lifetime: lifetime), issuerID: issuerID, bundleID: bundleID,
            issuedAt: Int64(issuedAt.timeIntervalSince1970.rounded(.down)), nonce: UUID())
        return Self.signed { () throws(PrivateKey.SigningError) in
            try DeveloperToken.sign(claims: claims, keyID: keyID, key: privateKey).token
        }
    }

    /// A token with any claims, under the developer header for `keyID` (default this key's),
    /// signed with this key: for tokens with one defect.
    func token(claims: [(String, DeveloperToken.Value)], keyID: String? = nil) -> String {
        Self.signed { () throws(PrivateKey.SigningError) in
            try DeveloperToken.sign(claims: claims, keyID: keyID ?? self.keyID, key: privateKey).token
        }
    }

    /// A token with any header and claims JSON (used byte-exact), signed with this key.
    func token(headerJSON: String, claimsJSON: String) -> String {
        let input = Base64URL.encode(Array(headerJSON.utf8)) + "." + Base64URL.encode(Array(claimsJSON.utf8))
        return input + "."
            + Base64URL.encode(
                Self.signed { () throws(PrivateKey.SigningError) in try privateKey.signES256(Array(input.utf8)) })
    }

    /// What `body` signs; a signing failure is the fixture's own defect and stops the test.
    private static func signed<T>(_ body: () throws(PrivateKey.SigningError) -> T) -> T {
        do {
            return try body()
        } catch {
            preconditionFailure("MockAPIKey: signing failed: \(error)")
        }
    }

    /// The claims of a valid token issued at `issuedAt` (`iss`, `iat`, `exp`, `aud`, `bid`), to
    /// alter one of.
    func claims(issuedAt: Date, lifetime: Int64 = DeveloperToken.defaultLifetime) -> [(String, DeveloperToken.Value)] {
        DeveloperToken.claims(
            .apiToken(lifetime: lifetime), issuerID: issuerID, bundleID: bundleID,
            issuedAt: Int64(issuedAt.timeIntervalSince1970.rounded(.down)), nonce: UUID())
    }

    /// Writes the key as `AuthKey_<keyID>.p8` (mode 0600) in `directory`.
    ///
    /// - Returns: the file's path.
    func writeKeyFile(in directory: URL) throws -> String {
        let url = directory.appendingPathComponent("AuthKey_\(keyID).p8")
        try Data(pem.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        return url.path
    }
}
