internal import FoundationEssentials

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// What one run has already learned, shared by every thread: decoded headers, parsed
/// certificates and validated chains. Real traffic repeats a handful of chains, so
/// after the first token of a chain each token costs one ES256 verification plus decoding.
///
/// Correctness first: a chain is validated once *together with the window of time in
/// which its validated path is within every certificate's dates*. Without revocation
/// data, time enters path validation only through those dates, so a later token whose
/// check time lies strictly inside the window gets the same answer a fresh validation
/// would give; any other time is validated afresh. The trusted roots are fixed for the
/// cache's lifetime (one cache per `Verifier`). What OpenSSL's strict checks say about the
/// path (`ValidatedPath.strictFindings`) is kept with it whatever the options: whether that
/// makes a note or a failure is decided per token, from the same words.
///
/// That argument holds only while nothing else about validity depends on time. Revocation
/// does (an OCSP answer is fresh for a while), so it is not part of path validation: it is its
/// own, time-sensitive policy (`RevocationPolicy`, `Check.Name.isTimeSensitive`), asked for
/// every token once its path is validated, and the windows kept here stay right. Nothing
/// time-sensitive is kept here (`ChainEntry.pairChecks` holds what depends on the certificates
/// alone); how long an answer is kept is its `RevocationRequester`'s business.
///
/// The cache holds what it is given and decides nothing itself: the checks a trust model
/// decides once per (leaf, intermediate) pair (the App Store model's marker OIDs) are
/// computed by that model, on the pair's first sight, and kept in `ChainEntry.pairChecks`.
final class VerificationCache: CertificateSetStore {
    /// A header segment decoded, with its `x5c` parsed. Immutable and shared, like `ChainEntry`.
    final class HeaderEntry: Sendable {
        let header: CompactJWS.DecodedSegment
        let chain: ParsedChain
        /// SHA-256 state after the header segment's whole blocks: every signing input of
        /// tokens with this header starts with them.
        let signingPrefix: SHA256Prefix?

        init(header: CompactJWS.DecodedSegment, chain: ParsedChain, signingPrefix: SHA256Prefix?) {
            self.header = header
            self.chain = chain
            self.signingPrefix = signingPrefix
        }
    }

    /// What is known about one (leaf, intermediate) pair. Immutable and shared: each token
    /// of the pair takes one reference, not a copy of every field.
    final class ChainEntry: Sendable {
        let leaf: Certificate
        let intermediate: Certificate
        /// The checks the trust model decides once per pair, in report order.
        let pairChecks: [Check]
        let leafKey: PublicKey?
        /// Set once the pair validated: the validated path and when all of it is in date.
        let validated: ValidatedPath?
        /// Set once the pair failed to validate at a moment given as "now": that moment and
        /// OpenSSL's answer. Every token of a run is asked whether its chain is valid now, at the
        /// same now, so a chain that has expired since its tokens were signed (an old log) is
        /// validated once for it, not once per token.
        let invalidNow: (date: Date, validation: TrustStore.PathValidation)?

        init(
            leaf: Certificate, intermediate: Certificate, pairChecks: [Check], leafKey: PublicKey?,
            validated: ValidatedPath?, invalidNow: (date: Date, validation: TrustStore.PathValidation)? = nil
        ) {
            self.leaf = leaf
            self.intermediate = intermediate
            self.pairChecks = pairChecks
            self.leafKey = leafKey
            self.validated = validated
            self.invalidNow = invalidNow
        }

        /// This entry with its validated path recorded.
        func validated(_ path: ValidatedPath) -> ChainEntry {
            ChainEntry(
                leaf: leaf, intermediate: intermediate, pairChecks: pairChecks, leafKey: leafKey, validated: path,
                invalidNow: invalidNow)
        }

        /// This entry with a failed validation at `date` recorded.
        func invalid(at date: Date, _ validation: TrustStore.PathValidation) -> ChainEntry {
            ChainEntry(
                leaf: leaf, intermediate: intermediate, pairChecks: pairChecks, leafKey: leafKey, validated: validated,
                invalidNow: (date, validation))
        }

        /// The failed validation recorded at exactly `date`, if any: path validation at one moment,
        /// with the same certificates and roots and no revocation data, gives one answer.
        func invalidValidation(at date: Date) -> TrustStore.PathValidation? {
            guard let invalidNow, invalidNow.date == date else { return nil }
            return invalidNow.validation
        }
    }

    struct ValidatedPath: Sendable {
        let path: [Certificate]
        /// The trusted root's name as messages show it (reading names from OpenSSL costs).
        let anchorName: String
        /// Seconds since 1970: the latest notBefore and earliest notAfter along the path.
        let notBefore: Double
        let notAfter: Double
        /// The checks of OpenSSL's strict mode the path fails, in words, or nil when it passes
        /// them (`ChainPolicy.strictFindings`). They depend on the certificates alone, so every
        /// token of the window gets the words a fresh validation would give.
        let strictFindings: String?
        /// The note a token of this path carries when the strict checks are not asked for
        /// (`ChainPolicy.strictNote`), made once and shared by every such token.
        let strictNote: String?

        init(validation: TrustStore.PathValidation, notBefore: Double, notAfter: Double) {
            let path = validation.path
            self.path = path
            self.anchorName = path.last.map(\.quotedName) ?? "a trusted root"
            self.notBefore = notBefore
            self.notAfter = notAfter
            let words = validation.strictFindings.isEmpty ? nil : ChainPolicy.strictFindings(validation)
            self.strictFindings = words
            self.strictNote = words.map(ChainPolicy.strictNote)
        }

        /// Strictly inside the window, at OpenSSL's one-second resolution.
        func covers(_ date: Date) -> Bool {
            let seconds = date.timeIntervalSince1970.rounded(.down)
            return notBefore < seconds && seconds < notAfter
        }
    }

    private struct ChainKey: Hashable {
        let leaf: ObjectIdentifier
        let intermediate: ObjectIdentifier
    }

    private struct State {
        /// The header seen last: consecutive tokens usually share it, and comparing bytes is
        /// cheaper than hashing a 5 KB key.
        var recent: (segment: String, entry: HeaderEntry)?
        var headers: [String: HeaderEntry] = [:]
        var certificates: [[UInt8]: Certificate] = [:]
        var chains: [ChainKey: ChainEntry] = [:]
        /// Receipts' certificate sets, by their encodings one after the other.
        var certificateSets: [[UInt8]: EmbeddedCertificates] = [:]
        /// The set seen last: consecutive receipts usually share it (compared, not hashed).
        var recentSet: (encoded: [UInt8], entry: EmbeddedCertificates)?
        /// The header segments', certificates' and certificate sets' bytes held (see `byteBudget`).
        var headerBytes = 0
        var certificateBytes = 0
        var certificateSetBytes = 0
    }

    /// Entries kept before the cache starts over (hostile input cannot grow it without bound).
    static let capacity = 4096
    /// Bytes of header segments, and of certificates, kept before that part starts over. An
    /// entry costs about four times its bytes (decoded members, parsed certificates), so the
    /// cache stays under about 64 MB whatever the input; real traffic (a few headers of about
    /// 5 KB, one per signing certificate) never comes near.
    static let byteBudget = 8 << 20
    /// A header segment or certificate larger than this is never kept: App Store headers are
    /// about 5 KB, and each kept entry of a hostile stream would cost as much as 64 of them.
    static let largestEntry = 64 << 10

    /// `byteBudget` and `largestEntry` for this cache (smaller in tests).
    private let budget: Int
    private let largest: Int

    init(byteBudget: Int = VerificationCache.byteBudget, largestEntry: Int = VerificationCache.largestEntry) {
        budget = byteBudget
        largest = largestEntry
    }

    private let state = Locked(State())

    // MARK: Headers

    /// The entry for the header of `token` when it is the header seen last, compared in
    /// place (no copy of the ~5 KB segment).
    func recentHeader(of token: String) -> HeaderEntry? {
        var token = token
        return token.withUTF8 { bytes in
            state.withLock { state -> HeaderEntry? in
                guard var recent = state.recent?.segment else { return nil }
                let entry = state.recent?.entry
                let length = recent.utf8.count
                guard bytes.count > length, bytes[length] == UInt8(ascii: ".") else { return nil }
                let same = recent.withUTF8 { memcmp($0.baseAddress!, bytes.baseAddress!, length) == 0 }
                return same ? entry : nil
            }
        }
    }

    func header(_ segment: String) -> HeaderEntry? {
        state.withLock { state in
            if let recent = state.recent, recent.segment == segment { return recent.entry }
            guard let entry = state.headers[segment] else { return nil }
            state.recent = (segment, entry)
            return entry
        }
    }

    func store(header entry: HeaderEntry, for segment: String) {
        let size = segment.utf8.count
        guard size <= largest else { return }
        state.withLock { state in
            if state.headers.count >= Self.capacity || state.headerBytes + size > budget {
                state.headers.removeAll()
                state.headerBytes = 0
            }
            if state.headers.updateValue(entry, forKey: segment) == nil { state.headerBytes += size }
            state.recent = (segment, entry)
        }
    }

    // MARK: Certificates

    /// The one parsed `Certificate` for these DER bytes, parsing them on first sight.
    func certificate(der: [UInt8]) throws(Certificate.ParseError) -> Certificate {
        guard der.count <= largest else { return try Certificate(derBytes: der) }
        if let known = state.withLock({ $0.certificates[der] }) { return known }
        let parsed = try Certificate(derBytes: der)
        return state.withLock { state in
            if let raced = state.certificates[der] { return raced }
            if state.certificates.count >= Self.capacity || state.certificateBytes + der.count > budget {
                // Start over; chains keyed by certificate identity go with them.
                state.certificates.removeAll()
                state.certificateBytes = 0
                state.chains.removeAll()
            }
            state.certificates[der] = parsed
            state.certificateBytes += der.count
            return parsed
        }
    }

    /// What the cache holds: entries and bytes (tests check the bounds).
    var footprint: (headers: Int, headerBytes: Int, certificates: Int, certificateBytes: Int, chains: Int) {
        state.withLock {
            ($0.headers.count, $0.headerBytes, $0.certificates.count, $0.certificateBytes, $0.chains.count)
        }
    }

    /// The receipt certificate sets held: sets and bytes (tests check the bounds).
    var certificateSetFootprint: (sets: Int, bytes: Int) {
        state.withLock { ($0.certificateSets.count, $0.certificateSetBytes) }
    }

    // MARK: Receipt certificate sets

    /// The set of a receipt's certificates (`CertificateSetStore`), bounded as certificates are:
    /// a set larger than `largestEntry` is parsed and not kept, and the sets start over beyond
    /// `capacity` sets or `byteBudget` bytes.
    func certificateSet(encoded: [UInt8], parse: () -> EmbeddedCertificates?) -> EmbeddedCertificates? {
        guard encoded.count <= largest else { return parse() }
        let known = state.withLock { state -> EmbeddedCertificates? in
            if let recent = state.recentSet, Self.same(recent.encoded, encoded) { return recent.entry }
            guard let entry = state.certificateSets[encoded] else { return nil }
            state.recentSet = (encoded, entry)
            return entry
        }
        if let known { return known }
        guard let parsed = parse() else { return nil }
        return state.withLock { state in
            if let raced = state.certificateSets[encoded] { return raced }
            if state.certificateSets.count >= Self.capacity || state.certificateSetBytes + encoded.count > budget {
                state.certificateSets.removeAll()
                state.certificateSetBytes = 0
            }
            state.certificateSets[encoded] = parsed
            state.certificateSetBytes += encoded.count
            state.recentSet = (encoded, parsed)
            return parsed
        }
    }

    /// Whether two byte arrays are equal, by `memcmp`.
    private static func same(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.count == right.count
            && left.withUnsafeBytes { left in
                right.withUnsafeBytes { right in
                    left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
                }
            }
    }

    // MARK: Chains

    /// The entry for a pair, computing its per-certificate facts on first sight.
    ///
    /// - Parameter pairChecks: the checks the trust model decides once per pair, called on
    ///   first sight only.
    func chain(
        leaf: Certificate, intermediate: Certificate, pairChecks: (Certificate, Certificate) -> [Check]
    ) -> ChainEntry {
        let key = ChainKey(leaf: ObjectIdentifier(leaf), intermediate: ObjectIdentifier(intermediate))
        if let known = state.withLock({ $0.chains[key] }), known.leaf === leaf, known.intermediate === intermediate {
            return known
        }
        let entry = ChainEntry(
            leaf: leaf, intermediate: intermediate, pairChecks: pairChecks(leaf, intermediate),
            leafKey: leaf.publicKey, validated: nil)
        // Certificates too large to be kept are not kept through a chain either.
        guard leaf.derBytes.count <= largest, intermediate.derBytes.count <= largest else { return entry }
        state.withLock { state in
            if state.chains.count >= Self.capacity { state.chains.removeAll() }
            if state.chains[key] == nil { state.chains[key] = entry }
        }
        return entry
    }

    /// Records that a pair validated along the path of `validation` (with its strict findings).
    /// - Returns: the stored record, or nil when the path's dates cannot be read.
    @discardableResult
    func storeValidated(_ validation: TrustStore.PathValidation, leaf: Certificate, intermediate: Certificate)
        -> ValidatedPath?
    {
        let path = validation.path
        let starts = path.compactMap { $0.notBefore?.timeIntervalSince1970 }
        let ends = path.compactMap { $0.notAfter?.timeIntervalSince1970 }
        guard starts.count == path.count, ends.count == path.count, let start = starts.max(), let end = ends.min()
        else { return nil }
        let validated = ValidatedPath(validation: validation, notBefore: start, notAfter: end)
        let key = ChainKey(leaf: ObjectIdentifier(leaf), intermediate: ObjectIdentifier(intermediate))
        state.withLock { state in
            guard let entry = state.chains[key], entry.leaf === leaf, entry.intermediate === intermediate else {
                return
            }
            state.chains[key] = entry.validated(validated)
        }
        return validated
    }

    /// Records that a pair failed to validate at `date` (the run's now).
    func storeInvalid(
        _ validation: TrustStore.PathValidation, at date: Date, leaf: Certificate, intermediate: Certificate
    ) {
        let key = ChainKey(leaf: ObjectIdentifier(leaf), intermediate: ObjectIdentifier(intermediate))
        state.withLock { state in
            guard let entry = state.chains[key], entry.leaf === leaf, entry.intermediate === intermediate else {
                return
            }
            state.chains[key] = entry.invalid(at: date, validation)
        }
    }
}
