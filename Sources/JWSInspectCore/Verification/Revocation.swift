package import FoundationEssentials

/// Asks whether a certificate is revoked: the seam an online check plugs into (an OCSP client,
/// a cache in front of one, a test's own responder). Given in `VerificationOptions.revocation`;
/// without one nothing is asked and no check is recorded.
///
/// A verifier calls it from several threads at once, once per certificate below the trusted
/// root of every validated path (the leaf by its intermediate, the intermediate by its root),
/// for every token: keeping answers (until their `nextUpdate`, one request per certificate a
/// run) is the requester's business, not the verifier's.
package protocol RevocationRequester: Sendable {
    /// The status of `certificate`, issued by `issuer`, as known at `now` (revocation is decided
    /// at the time of inspection, whatever moment the chain is validated at).
    func status(of certificate: Certificate, issuedBy issuer: Certificate, now: Date) -> RevocationAnswer
}

/// What a `RevocationRequester` found out about one certificate.
package enum RevocationAnswer: Sendable, Equatable {
    /// Not revoked: a signed, current answer from `responder`, produced at `thisUpdate`.
    case good(responder: String, thisUpdate: Date)
    /// Revoked at `date`, for `reason` (a CRL reason, "keyCompromise"), when given.
    case revoked(responder: String, date: Date, reason: String?)
    /// The certificate names no responder to ask (no OCSP URL in its Authority Information Access).
    case noResponder
    /// No usable answer: unreachable, timed out, unsigned, stale, or the responder does not
    /// know the certificate. Never taken as good: the check fails (`why` says what happened).
    case unavailable(why: String)
}
