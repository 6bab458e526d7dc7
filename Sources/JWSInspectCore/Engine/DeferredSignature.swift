/// An ES256 verification left for later by `Verifier.inspectDeferringSignature`.
package struct DeferredSignature: Sendable {
    let key: PublicKey
    let digest: [UInt8]
    let signature: [UInt8]
    /// Where its pending check is in the inspection's `checks`.
    let checkIndex: Int

    /// Runs the verification: true when the signature is good.
    package func verifies() -> Bool {
        key.verifyES256(signature: signature, digest: digest) == nil
    }

    /// Runs the verification and, when the signature is good, passes the inspection's pending
    /// `signature` check: the inspection is then exactly what `Verifier.inspect` returns.
    ///
    /// - Returns: false when the signature is bad: the inspection must be discarded.
    package func resolve(_ inspection: inout Inspection) -> Bool {
        guard verifies() else { return false }
        Self.pass(&inspection, at: checkIndex)
        return true
    }

    /// Passes the inspection's pending check, once its signature is known to verify.
    static func pass(_ inspection: inout Inspection, at index: Int) {
        inspection.passPendingCheck(at: index)
    }
}
