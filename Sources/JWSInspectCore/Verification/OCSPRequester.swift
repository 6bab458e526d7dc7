package import FoundationEssentials

/// Where verified OCSP answers are kept between runs (`--revocation-cache DIR`): bytes by name.
/// What is loaded is verified again, exactly as an answer from the network, so a store can
/// hold nothing that is believed without its responder's signature.
package protocol RevocationResponseStore: Sendable {
    /// The answer kept under `key` (hex), or nil.
    func load(_ key: String) -> [UInt8]?
    /// Keeps `response` under `key`: a signed, current answer, good or revoked.
    func save(_ key: String, _ response: [UInt8])
}

/// The `RevocationRequester` of `--check-revocation`: asks the OCSP responder each certificate
/// names in its Authority Information Access (`OCSP`), one request per distinct certificate per
/// run, however many tokens share it and however many threads ask at once. An answer is kept
/// for the run (a good one until its `nextUpdate`, when it is asked for again); a store, when
/// given, keeps good and revoked answers between runs.
///
/// No retry: an answer that cannot be had is `unavailable` for the rest of the run, so a
/// responder that is down costs one timeout per certificate, not one per token.
package final class OCSPRequester: RevocationRequester {
    /// How long one request may take, in seconds.
    package let timeout: Int
    let store: (any RevocationResponseStore)?
    private let table = Locked(Table())
    private let sent = Locked(0)

    /// The most certificates kept; past it the table starts again (answers are asked again).
    static let capacity = 1_024

    package init(timeout: Int, store: (any RevocationResponseStore)? = nil) {
        self.timeout = max(1, timeout)
        self.store = store
    }

    /// The largest answer read from a responder or a store, in bytes (64 KiB; Apple's are about
    /// 2 KB): a store need read no more.
    package static var maximumResponseBytes: Int { OCSP.maximumResponseBytes }

    /// The requests sent to responders so far (answers from the store not counted).
    package var requestsSent: Int { sent.withLock { $0 } }

    package func status(of certificate: Certificate, issuedBy issuer: Certificate, now: Date) -> RevocationAnswer {
        let entry = self.entry(for: certificate, issuer)
        // The entry's lock is held while its question is asked: a second thread asking about the
        // same certificate waits for the answer instead of sending a request of its own.
        return entry.kept.withLock { kept in
            if let kept, kept.until.map({ now <= $0 }) ?? true { return kept.answer }
            let fresh = ask(certificate, issuer, now: now)
            kept = fresh
            return fresh.answer
        }
    }

    // MARK: - The table

    /// One certificate, by its issuer, and what is known of it.
    private final class Entry: Sendable {
        /// Held so that their object identifiers stay theirs while the entry is in the table.
        let certificate: Certificate
        let issuer: Certificate
        let kept = Locked<Kept?>(nil)

        init(_ certificate: Certificate, _ issuer: Certificate) {
            self.certificate = certificate
            self.issuer = issuer
        }
    }

    private struct Kept {
        let answer: RevocationAnswer
        /// Asked again after this moment; nil: kept for the run.
        let until: Date?
    }

    private struct Identity: Hashable {
        let certificate: ObjectIdentifier
        let issuer: ObjectIdentifier
    }

    private struct Content: Hashable {
        let certificate: [UInt8]
        let issuer: [UInt8]
    }

    /// Entries by the certificates' objects (a batch's tokens share them: no hashing of their
    /// bytes per token), and by their bytes (the same certificates parsed again).
    private struct Table {
        var byIdentity: [Identity: Entry] = [:]
        var byContent: [Content: Entry] = [:]
    }

    private func entry(for certificate: Certificate, _ issuer: Certificate) -> Entry {
        let identity = Identity(certificate: ObjectIdentifier(certificate), issuer: ObjectIdentifier(issuer))
        if let found = table.withLock({ $0.byIdentity[identity] }) { return found }
        let content = Content(certificate: certificate.derBytes, issuer: issuer.derBytes)
        return table.withLock { table in
            if table.byIdentity.count >= Self.capacity { table.byIdentity.removeAll() }
            if table.byContent.count >= Self.capacity { table.byContent.removeAll() }
            let entry = table.byContent[content] ?? Entry(certificate, issuer)
            table.byContent[content] = entry
            // Keyed by these objects only when the entry holds these very objects.
            if entry.certificate === certificate, entry.issuer === issuer { table.byIdentity[identity] = entry }
            return entry
        }
    }

    // MARK: - Asking

    private func ask(_ certificate: Certificate, _ issuer: Certificate, now: Date) -> Kept {
        let url: String
        switch OCSP.responder(of: certificate) {
        case .none: return Kept(answer: .noResponder, until: nil)
        case .unusable(let why): return Kept(answer: .unavailable(why: why), until: nil)
        case .url(let found): url = found
        }
        guard let request = OCSP.request(for: certificate, issuedBy: issuer) else {
            return Kept(answer: .unavailable(why: "OpenSSL could not make the OCSP request for \(url)"), until: nil)
        }
        if let store, let bytes = store.load(request.key),
            case .success(let finding) = OCSP.verify(
                response: bytes, certificate: certificate, issuer: issuer, now: now)
        {
            return Self.kept(finding, responder: "\(url), kept in the cache")
        }
        sent.withLock { $0 += 1 }
        let bytes: [UInt8]
        switch OCSP.post(request.der, to: url, timeout: timeout) {
        case .failure(let failure): return Kept(answer: .unavailable(why: "\(url): \(failure.text)"), until: nil)
        case .success(let answer): bytes = answer
        }
        switch OCSP.verify(response: bytes, certificate: certificate, issuer: issuer, now: now) {
        case .failure(let failure):
            return Kept(answer: .unavailable(why: "\(url): \(failure.text)"), until: nil)
        case .success(let finding):
            store?.save(request.key, bytes)
            return Self.kept(finding, responder: url)
        }
    }

    private static func kept(_ finding: OCSP.Finding, responder: String) -> Kept {
        switch finding.status {
        case .good:
            return Kept(answer: .good(responder: responder, thisUpdate: finding.thisUpdate), until: finding.nextUpdate)
        case .revoked(let date, let reason):
            // A revocation is for good.
            return Kept(answer: .revoked(responder: responder, date: date, reason: reason), until: nil)
        }
    }
}
