// The transaction receipt side of the fuzz target: StoreKit 1 transaction receipts (OpenStep
// property lists) through `Verifier.inspectTransactionReceipt` (`TransactionReceiptEnvelope`,
// `OpenStepPropertyList`), every property of the result read so that lazily computed text
// runs too.
import Foundation
import JWSInspectCore
import StrictJSONParser

extension Harness {
    /// A property list's bytes inspected with `verifier`, and under `--no-verify` with
    /// `--require-active`. Invariants: a result is malformed exactly when nothing was decoded;
    /// a decoded one is never valid, never authentic, never granting access; its sections are JSON.
    static func inspectTransactionReceipt(_ propertyList: [UInt8], source: String, verifier: Verifier) {
        readTransactionReceipt(verifier.inspectTransactionReceipt(propertyList, source: source), verified: true)
        var unverified = VerificationOptions()
        unverified.now = now
        unverified.verifySignatures = false
        unverified.requireActive = true
        let inspection = Verifier(options: unverified).inspectTransactionReceipt(propertyList, source: source)
        readTransactionReceipt(inspection, verified: false)
    }

    static func readTransactionReceipt(_ inspection: Inspection, verified: Bool) {
        precondition(!inspection.reason.isEmpty, "a transaction receipt result without a reason")
        guard let envelope = inspection.envelope, envelope.transactionReceipt != nil else {
            precondition(inspection.status == .malformed, "no transaction receipt decoded, yet \(inspection.status)")
            return
        }
        precondition(inspection.kind == .transactionReceipt, "a transaction receipt of another kind")
        precondition(inspection.status != .valid && !inspection.isAuthentic, "a transaction receipt verified")
        if verified { precondition(inspection.status == .unverifiable, "verified, yet \(inspection.status)") }
        for check in inspection.checks { precondition(!check.detail.isEmpty, "a check without detail") }
        do {
            _ = try StrictJSON.parse(envelope.sections.header.bytes)
            _ = try StrictJSON.parse(envelope.sections.payload.bytes)
        } catch {
            preconditionFailure("a transaction receipt section is not JSON: \(error)")
        }
        guard let presentation = inspection.fullPresentation else {
            preconditionFailure("a decoded transaction receipt without presentation")
        }
        for field in presentation.display.fields {
            _ = (field.dottedPath, field.raw, field.rendered, field.relative, field.flag)
        }
        precondition(presentation.access.access.grantsAccess != true, "a transaction receipt granted access")
        precondition(inspection.access?.access.grantsAccess != true, "a transaction receipt granted access")
        precondition(!presentation.summary.isEmpty, "an empty summary")
    }
}
