/// An ES256 verification left for later by `Verifier.inspectDeferringSignature`.
public struct DeferredSignature: Sendable {
    let key: PublicKey
    let digest: [UInt8]
    let signature: [UInt8]

    /// Runs the verification: true when the signature is good.
    public func verifies() -> Bool {
        key.verifyES256(signature: signature, digest: digest) == nil
    }

    /// Runs the verification and, when the signature is good, passes the inspection's pending
    /// `signature` check: the inspection is then exactly what `Verifier.inspect` returns.
    ///
    /// - Returns: false when the signature is bad: the inspection must be discarded.
    public func resolve(_ inspection: inout Inspection) -> Bool {
        guard verifies() else { return false }
        Self.pass(&inspection)
        return true
    }

    /// Passes the inspection's pending check, once its signature is known to verify.
    static func pass(_ inspection: inout Inspection) {
        guard let index = inspection.checks.firstIndex(where: \.isPending) else { return }
        inspection.checks[index] = inspection.checks[index].passing()
    }
}
