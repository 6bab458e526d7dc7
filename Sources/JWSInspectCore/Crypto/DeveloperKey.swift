/// A developer's own key (an App Store Connect In-App Purchase key), known by its key ID:
/// what developer-signed tokens (API bearer tokens, offer signatures) are verified with.
package struct DeveloperKey: Sendable {
    /// The key ID App Store Connect shows, and tokens carry in `kid`.
    package let keyID: String
    /// The public half (from a `.p8` private key, or a public key PEM).
    package let publicKey: PublicKey

    package init(keyID: String, publicKey: PublicKey) {
        self.keyID = keyID
        self.publicKey = publicKey
    }
}
