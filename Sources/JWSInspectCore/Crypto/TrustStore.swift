internal import COpenSSL
public import FoundationEssentials

/// Trusted root certificates in an OpenSSL `X509_STORE`, and path validation against them.
///
/// Only the configured roots are ever in the store: nothing from a message is
/// trusted. `@unchecked Sendable`: the store is filled in init and only read
/// afterwards; OpenSSL locks its own lookups, so concurrent validations are safe.
public final class TrustStore: @unchecked Sendable {
    private let store: OpaquePointer
    /// The trusted roots, in the order given.
    public let roots: [Certificate]

    /// Builds a store trusting exactly `roots`.
    public init(roots: [Certificate]) {
        guard let store = X509_STORE_new() else { preconditionFailure("X509_STORE_new failed: out of memory") }
        for root in roots where X509_STORE_add_cert(store, root.pointer) != 1 {
            OpenSSLError.drain()
        }
        self.store = store
        self.roots = roots
    }

    deinit {
        X509_STORE_free(store)
    }

    /// The outcome of validating a path.
    public struct PathValidation: Sendable {
        /// Why no path validated, or nil when OpenSSL built and validated a path to a trusted root.
        public let error: X509VerifyError?
        /// Depth of the certificate the error is about (0 = leaf), or -1.
        public let errorDepth: Int32
        /// The validated path, leaf first, ending at the trusted root (empty when invalid).
        public let path: [Certificate]

        /// True when OpenSSL built and validated a path to a trusted root.
        public var isValid: Bool { error == nil }
        /// The error's text ("ok" when valid).
        public var errorText: String { error?.text ?? "ok" }
    }

    /// Which of OpenSSL's certificate structure checks apply beyond RFC 5280 path validation.
    public enum StructureChecks: Sendable, Equatable {
        /// RFC 5280 path validation as OpenSSL does it by default.
        case rfc5280
        /// Also `X509_V_FLAG_X509_STRICT`'s checks (a CA must have keyUsage, a leaf's keyUsage
        /// must not be keyCertSign only, basicConstraints critical…), except that missing
        /// subject and authority key identifiers are let through.
        case strictExceptKeyIdentifiers
        /// `X509_V_FLAG_X509_STRICT` in full, as Apple's Python library sets it.
        case strict
    }

    /// Validates `leaf` up to one of the trusted roots using `intermediates` as untrusted helpers.
    ///
    /// - Parameters:
    ///   - time: the moment at which every certificate must be valid.
    ///   - checks: the structure checks beyond RFC 5280.
    ///   - authLevel: OpenSSL's authentication security level for this one validation
    ///     (`X509_VERIFY_PARAM_set_auth_level` on this context only), or nil for OpenSSL's default
    ///     (-1, no minimum). Level 1 and above refuse SHA-1 certificate signatures
    ///     (`X509_V_ERR_CA_MD_TOO_WEAK`); legacy receipts pass 0 (see `ReceiptChain`).
    public func validate(
        leaf: Certificate, intermediates: [Certificate], at time: Date, checks: StructureChecks,
        authLevel: Int32? = nil
    ) -> PathValidation {
        // The time may come from a payload: range-checked before it becomes a time_t.
        guard let seconds = Timestamp.seconds(time).flatMap({ time_t(exactly: $0) }) else {
            return PathValidation(
                error: .notStarted("the check time is not a valid date (years 0001 to 9999)"), errorDepth: -1, path: [])
        }
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
                // The stack borrows the pointers; the wrappers own them.
                _ = COpenSSL_sk_X509_push(untrusted, certificate.pointer)
            }
            guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else {
                let detail = OpenSSLError.describe(or: "X509_STORE_CTX_init failed")
                return PathValidation(error: .notStarted(detail), errorDepth: -1, path: [])
            }
            let param = X509_STORE_CTX_get0_param(context)
            X509_VERIFY_PARAM_set_time(param, seconds)
            if let authLevel {
                X509_VERIFY_PARAM_set_auth_level(param, authLevel)
            }
            if checks != .rfc5280 {
                X509_VERIFY_PARAM_set_flags(param, UInt(X509_V_FLAG_X509_STRICT))
            }
            if checks == .strictExceptKeyIdentifiers {
                COpenSSL_tolerate_missing_key_identifiers(context)
            }
            let result = X509_verify_cert(context)
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            OpenSSLError.drain()
            guard result == 1 else {
                return PathValidation(error: X509VerifyError(code: code), errorDepth: depth, path: [])
            }
            return PathValidation(
                error: nil, errorDepth: -1, path: builtPath(context, leaf: leaf, intermediates: intermediates))
        }
    }

    /// Maps the chain OpenSSL built back to our wrappers (by identity of content).
    private func builtPath(_ context: OpaquePointer, leaf: Certificate, intermediates: [Certificate]) -> [Certificate] {
        guard let chain = X509_STORE_CTX_get0_chain(context) else { return [] }
        let candidates = [leaf] + intermediates + roots
        let count = COpenSSL_sk_X509_num(chain)
        guard count > 0 else { return [] }
        return (0..<count).compactMap { index in
            guard let x509 = COpenSSL_sk_X509_value(chain, index) else { return nil }
            return candidates.first { X509_cmp($0.pointer, x509) == 0 }
        }
    }
}
