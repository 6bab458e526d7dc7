internal import COpenSSL
package import FoundationEssentials

/// Trusted root certificates in an OpenSSL `X509_STORE`, and path validation against them.
///
/// Only the configured roots are ever in the store: nothing from a message is
/// trusted. `@unchecked Sendable`: roots are parsed, and stores made, under a lock (`Anchors`),
/// each once and only read afterwards; OpenSSL locks its own lookups, so concurrent
/// validations are safe.
package final class TrustStore: @unchecked Sendable {
    /// The trusted roots' DER bytes, in the order given: known without parsing them.
    package let rootDERs: [[UInt8]]
    /// Roots parsed, and `X509_STORE`s made, as validations need them (`Anchors`).
    private let anchors: Locked<Anchors>

    /// An `X509_STORE` and the parsed roots it holds.
    private struct Anchors {
        /// The roots by index in `rootDERs`, each parsed once.
        var parsed: [Int: Certificate] = [:]
        /// The store of every root and those roots, made on first use.
        var full: (store: OpaquePointer, roots: [Certificate])?
        /// Stores of one root each (by index), for a chain that names its root: made lazily
        /// only for a store of `lazy` roots (Apple's embedded ones).
        var single: [Int: OpaquePointer] = [:]
    }

    /// Whether roots are parsed when first needed, and a chain that carries a root's own bytes
    /// is validated against that root alone first.
    private let lazy: Bool

    /// Builds a store trusting exactly `roots`.
    package init(roots: [Certificate]) {
        rootDERs = roots.map(\.derBytes)
        lazy = false
        var anchors = Anchors()
        for (index, root) in roots.enumerated() { anchors.parsed[index] = root }
        anchors.full = (Self.makeStore(roots), roots)
        self.anchors = Locked(anchors)
    }

    /// A store trusting exactly the certificates `rootDERs` hold, parsed when a validation or a
    /// report first needs them (a single token from the command line parses the one root its
    /// chain names). The bytes must be certificates (they are compiled in, and tested).
    init(lazyRootDERs rootDERs: [[UInt8]]) {
        self.rootDERs = rootDERs
        lazy = true
        anchors = Locked(Anchors())
    }

    deinit {
        anchors.withLock { anchors in
            if let full = anchors.full { X509_STORE_free(full.store) }
            for store in anchors.single.values { X509_STORE_free(store) }
        }
    }

    /// An `X509_STORE` holding `roots`.
    private static func makeStore(_ roots: [Certificate]) -> OpaquePointer {
        guard let store = X509_STORE_new() else { preconditionFailure("X509_STORE_new failed: out of memory") }
        for root in roots where root.withUnsafeX509Pointer({ X509_STORE_add_cert(store, $0) }) != 1 {
            OpenSSLError.drain()
        }
        return store
    }

    /// The root at `index`, parsed on first use (with `anchors` locked).
    private func root(at index: Int, in anchors: inout Anchors) -> Certificate {
        if let root = anchors.parsed[index] { return root }
        guard let root = try? Certificate(derBytes: rootDERs[index]) else {
            preconditionFailure("trusted root \(index) does not parse; run `make roots`")
        }
        anchors.parsed[index] = root
        return root
    }

    /// How many roots are parsed so far (the tests check that one token parses one).
    var parsedRootCount: Int { anchors.withLock { $0.parsed.count } }

    /// The trusted roots, in the order given (all of them parsed).
    package var roots: [Certificate] { fullStore().roots }

    /// The trusted root whose DER bytes are `der`, or nil.
    package func root(der: [UInt8]) -> Certificate? {
        guard let index = rootDERs.firstIndex(of: der) else { return nil }
        return anchors.withLock { root(at: index, in: &$0) }
    }

    /// The store of every root and its roots.
    private func fullStore() -> (store: OpaquePointer, roots: [Certificate]) {
        anchors.withLock { anchors in
            if let full = anchors.full { return full }
            let roots = rootDERs.indices.map { root(at: $0, in: &anchors) }
            let full = (store: Self.makeStore(roots), roots: roots)
            anchors.full = full
            return full
        }
    }

    /// For a lazy store and a chain that carries `der`, a trusted root's own bytes: a store of
    /// that root alone.
    private func singleStore(der: [UInt8]?) -> (store: OpaquePointer, roots: [Certificate])? {
        guard lazy, rootDERs.count > 1, let der, let index = rootDERs.firstIndex(of: der) else { return nil }
        return anchors.withLock { anchors in
            let root = root(at: index, in: &anchors)
            if let store = anchors.single[index] { return (store, [root]) }
            let store = Self.makeStore([root])
            anchors.single[index] = store
            return (store, [root])
        }
    }

    /// The outcome of validating a path.
    package struct PathValidation: Sendable {
        /// Why no path validated, or nil when OpenSSL built and validated a path to a trusted root.
        package let error: X509VerifyError?
        /// Depth of the certificate the error is about (0 = leaf), or -1.
        package let errorDepth: Int32
        /// The certificate the error is about, as OpenSSL saw it (the trusted root itself when the
        /// error is about the root), when OpenSSL named one.
        package let errorCertificate: Certificate?
        /// The validated path, leaf first, ending at the trusted root (empty when invalid).
        package let path: [Certificate]
        /// The floor the validation applied.
        package let floor: AlgorithmFloor
        /// What OpenSSL's strict checks (`X509_V_FLAG_X509_STRICT`) would refuse in the validated
        /// path, when asked for (`reviewingStrictChecks`) and the path validated: empty when they
        /// pass too.
        package let strictFindings: [StrictFinding]
        /// Strict findings beyond the most one validation records (32), not in `strictFindings`.
        package let strictFindingsDropped: Int

        init(
            error: X509VerifyError?, errorDepth: Int32 = -1, errorCertificate: Certificate? = nil,
            path: [Certificate] = [], floor: AlgorithmFloor, strictFindings: [StrictFinding] = [],
            strictFindingsDropped: Int = 0
        ) {
            self.error = error
            self.errorDepth = errorDepth
            self.errorCertificate = errorCertificate
            self.path = path
            self.floor = floor
            self.strictFindings = strictFindings
            self.strictFindingsDropped = strictFindingsDropped
        }

        /// True when OpenSSL built and validated a path to a trusted root.
        package var isValid: Bool { error == nil }
        /// The error's text ("ok" when valid).
        package var errorText: String { error?.text ?? "ok" }
    }

    /// One check of OpenSSL's strict mode that a path validated under RFC 5280 fails.
    package struct StrictFinding: Sendable {
        /// OpenSSL's code for the check ("CA cert does not include key usage extension (X509_V_ERR 92)").
        package let error: X509VerifyError
        /// Depth in the validated path (0 = leaf).
        package let depth: Int32
        /// The certificate at that depth of the validated path.
        package let certificate: Certificate?
    }

    /// Which of OpenSSL's certificate structure checks apply beyond RFC 5280 path validation.
    package enum StructureChecks: Sendable, Equatable {
        /// RFC 5280 path validation as OpenSSL does it by default, as Apple's Swift, Java and Node
        /// libraries validate.
        case rfc5280
        /// `X509_V_FLAG_X509_STRICT` in full, as Apple's Python library sets it (a CA must have
        /// keyUsage, key identifiers must be present, basicConstraints critical…).
        case strict
    }

    /// The weakest keys and certificate signatures a validation accepts: OpenSSL's authentication
    /// security level (`X509_VERIFY_PARAM_set_auth_level`, on this validation's context only).
    ///
    /// At level 2 every key of the path (the leaf's, each issuer's, the trusted root's) has at
    /// least 112-bit security (RSA and DSA 2048 bits, EC 224 bits: `X509_V_ERR_EE_KEY_TOO_SMALL`,
    /// `X509_V_ERR_CA_KEY_TOO_SMALL`), and every certificate signature but the trust anchor's own
    /// is over a digest of at least 112 bits (`X509_V_ERR_CA_MD_TOO_WEAK`): OpenSSL credits
    /// SHA-1 signatures with 63 bits and MD5 ones with 39, so both are refused.
    package enum AlgorithmFloor: Sendable, Equatable {
        /// Level 2: App Store JWS chains (P-256 and P-384 keys, SHA-256 and SHA-384 signatures).
        case level2
        /// Level 2, except that certificate signatures over SHA-1 pass: legacy receipt chains,
        /// which Apple signed with SHA-1 until 2025. MD5 and every other weak digest still fail.
        case level2AllowingSHA1Signatures

        /// OpenSSL's authentication level.
        var authLevel: Int32 { 2 }

        /// Whether a CMS signer's digest (OpenSSL NID) meets the floor: SHA-1 only where the floor
        /// allows it, and the SHA-2 and SHA-3 families.
        package func accepts(digestNID nid: Int32) -> Bool {
            switch nid {
            case NID_sha1: self == .level2AllowingSHA1Signatures
            case NID_sha224, NID_sha256, NID_sha384, NID_sha512, NID_sha512_224, NID_sha512_256, NID_sha3_224,
                NID_sha3_256, NID_sha3_384, NID_sha3_512:
                true
            default: false
            }
        }

        /// What the floor accepts, for messages.
        package var summary: String {
            switch self {
            case .level2:
                "keys of at least 112-bit security (RSA 2048, EC P-224) and certificate signatures "
                    + "over SHA-224 or stronger (no SHA-1, no MD5)"
            case .level2AllowingSHA1Signatures:
                "keys of at least 112-bit security (RSA 2048, EC P-224) and certificate signatures "
                    + "over SHA-1 or stronger (no MD5)"
            }
        }
    }

    /// Validates `leaf` up to one of the trusted roots using `intermediates` as untrusted helpers.
    ///
    /// - Parameters:
    ///   - time: the moment at which every certificate must be valid.
    ///   - checks: the structure checks beyond RFC 5280.
    ///   - floor: the weakest keys and certificate signatures accepted (see `AlgorithmFloor`).
    ///   - reviewingStrictChecks: when the path validates, also run OpenSSL's strict checks on it
    ///     (a second `X509_verify_cert` with `X509_V_FLAG_X509_STRICT`, recording every check it
    ///     fails rather than stopping at the first, without computing the signatures again)
    ///     into `strictFindings`.
    ///   - namedRoot: the DER bytes of the root the message names (an App Store chain's
    ///     `x5c[2]`), never trusted for that: when they are a trusted root's and the roots are
    ///     parsed lazily, the path is first validated against that root alone (one root parsed
    ///     instead of all), and against every root when that fails, so that a failure reads as
    ///     it would without the hint.
    package func validate(
        leaf: Certificate, intermediates: [Certificate], at time: Date, checks: StructureChecks,
        floor: AlgorithmFloor, reviewingStrictChecks: Bool = false, namedRoot: [UInt8]? = nil
    ) -> PathValidation {
        // The time may come from a payload: range-checked before it becomes a time_t.
        guard let seconds = Timestamp.seconds(time).flatMap({ time_t(exactly: $0) }) else {
            return PathValidation(
                error: .notStarted("the check time is not a valid date (years 0001 to 9999)"), floor: floor)
        }
        var chosen = singleStore(der: namedRoot) ?? fullStore()
        var first = verify(
            leaf: leaf, intermediates: intermediates, at: seconds, strict: checks == .strict, floor: floor,
            anchors: chosen)
        // A failure on a path that reached the named root is the failure every root gives (the
        // embedded roots' names differ, so OpenSSL builds the same path); any other is asked of
        // every root.
        if first.path == nil, !first.reachedRoot, chosen.roots.count < rootDERs.count {
            chosen = fullStore()
            first = verify(
                leaf: leaf, intermediates: intermediates, at: seconds, strict: checks == .strict, floor: floor,
                anchors: chosen)
        }
        guard let path = first.path else {
            return PathValidation(
                error: first.error, errorDepth: first.depth, errorCertificate: first.certificate, floor: floor)
        }
        guard reviewingStrictChecks, checks != .strict else {
            return PathValidation(error: nil, path: path, floor: floor)
        }
        let review = verify(
            leaf: leaf, intermediates: intermediates, at: seconds, strict: true, floor: floor, anchors: chosen,
            collecting: true)
        let reviewed = review.path ?? path
        let findings = review.findings.map { error, depth in
            StrictFinding(
                error: error, depth: depth,
                certificate: depth >= 0 && depth < reviewed.count ? reviewed[Int(depth)] : nil)
        }
        return PathValidation(
            error: nil, path: path, floor: floor, strictFindings: findings, strictFindingsDropped: review.dropped)
    }

    /// What one `X509_verify_cert` found.
    private struct Verification {
        /// The validated path, or nil when it did not validate.
        var path: [Certificate]?
        var error: X509VerifyError?
        var depth: Int32 = -1
        var certificate: Certificate?
        /// Every failure recorded by a collecting validation (error, depth), in OpenSSL's order.
        var findings: [(X509VerifyError, Int32)] = []
        /// Failures a collecting validation found beyond those it records.
        var dropped = 0
        /// Whether the path OpenSSL built, valid or not, ends at one of the store's roots.
        var reachedRoot = false
    }

    /// One `X509_verify_cert` at `seconds`, on a context of its own.
    ///
    /// - Parameter collecting: record every failure and go on (the verification then succeeds
    ///   whatever it found); only meaningful after the same path validated without it, since
    ///   it checks no signature or validity time (those the validation did).
    private func verify(
        leaf: Certificate, intermediates: [Certificate], at seconds: time_t, strict: Bool, floor: AlgorithmFloor,
        anchors: (store: OpaquePointer, roots: [Certificate]), collecting: Bool = false
    ) -> Verification {
        let (store, roots) = anchors
        guard let context = X509_STORE_CTX_new() else {
            preconditionFailure("X509_STORE_CTX_new failed: out of memory")
        }
        defer { X509_STORE_CTX_free(context) }
        guard let untrusted = COpenSSL_sk_X509_new_null() else {
            preconditionFailure("sk_X509_new_null failed: out of memory")
        }
        defer { COpenSSL_sk_X509_free(untrusted) }
        return withExtendedLifetime((leaf, intermediates)) {
            for certificate in intermediates {
                // The stack borrows the pointers; the wrappers own them, alive until the closure returns.
                _ = certificate.withUnsafeX509Pointer { COpenSSL_sk_X509_push(untrusted, $0) }
            }
            // The context borrows the leaf's pointer likewise.
            guard leaf.withUnsafeX509Pointer({ X509_STORE_CTX_init(context, store, $0, untrusted) }) == 1 else {
                let detail = OpenSSLError.describe(or: "X509_STORE_CTX_init failed")
                return Verification(error: .notStarted(detail))
            }
            let param = X509_STORE_CTX_get0_param(context)
            X509_VERIFY_PARAM_set_time(param, seconds)
            X509_VERIFY_PARAM_set_auth_level(param, floor.authLevel)
            if strict {
                X509_VERIFY_PARAM_set_flags(param, UInt(X509_V_FLAG_X509_STRICT))
            }
            var state = COpenSSL_VerifyState()
            state.allowSHA1Signatures = floor == .level2AllowingSHA1Signatures ? 1 : 0
            state.collect = collecting ? 1 : 0
            let result = COpenSSL_X509_verify_cert_with_state(context, &state)
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            OpenSSLError.drain()
            let findings = (0..<min(state.count, COPENSSL_VERIFY_FINDINGS)).map { index in
                (
                    X509VerifyError(code: COpenSSL_VerifyState_error(&state, index)),
                    COpenSSL_VerifyState_depth(&state, index)
                )
            }
            guard result == 1 else {
                let certificate = X509_STORE_CTX_get_current_cert(context).flatMap { current in
                    ([leaf] + intermediates + roots).first { $0.withUnsafeX509Pointer { X509_cmp($0, current) } == 0 }
                }
                let built = builtPath(context, leaf: leaf, intermediates: intermediates, roots: roots)
                let reachedRoot = built.last.map { last in roots.contains { $0 === last } } ?? false
                return Verification(
                    error: X509VerifyError(code: code), depth: depth, certificate: certificate, findings: findings,
                    reachedRoot: reachedRoot)
            }
            return Verification(
                path: builtPath(context, leaf: leaf, intermediates: intermediates, roots: roots), findings: findings,
                dropped: Int(state.dropped))
        }
    }

    /// Maps the chain OpenSSL built back to our wrappers (by identity of content).
    private func builtPath(
        _ context: OpaquePointer, leaf: Certificate, intermediates: [Certificate], roots: [Certificate]
    ) -> [Certificate] {
        guard let chain = X509_STORE_CTX_get0_chain(context) else { return [] }
        let candidates = [leaf] + intermediates + roots
        let count = COpenSSL_sk_X509_num(chain)
        guard count > 0 else { return [] }
        return (0..<count).compactMap { index in
            guard let x509 = COpenSSL_sk_X509_value(chain, index) else { return nil }
            return candidates.first { $0.withUnsafeX509Pointer { X509_cmp($0, x509) } == 0 }
        }
    }
}
