/// The verdict on one JWS, in the vocabulary of `--format json`'s `status` key.
package enum Status: String, Sendable, CaseIterable {
    case valid
    case invalidSignature = "invalid-signature"
    case invalidChain = "invalid-chain"
    case wrongEnvironment = "wrong-environment"
    case wrongApp = "wrong-app"
    case malformed
    /// `--require-active`: the transaction grants no access at the check time.
    case inactive
    /// A developer-signed token's claims are not what Apple requires (expired, lifetime too
    /// long, issued in the future, missing or other `aud`, missing `iss`, `exp` where Apple
    /// refuses it, a `nonce` that is not a UUID).
    case invalidClaims = "invalid-claims"
    /// Decoded with `--no-verify`: nothing cryptographic was checked.
    case unverified
    /// A revocation check was asked for and no answer could be had (the responder unreachable,
    /// slow, or answering unsigned, stale or unknown): not proven valid, and worth asking again.
    case revocationUnavailable = "revocation-unavailable"
    /// A StoreKit 1 transaction receipt: decoded, but signed in a format nothing here verifies
    /// (its transaction is verified through Apple, `fetch transaction`). Never valid.
    case unverifiable

    /// True for the statuses that are failures.
    package var isFailure: Bool { self != .valid && self != .unverified }
}
