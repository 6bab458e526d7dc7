extension Verifier {
    /// Inspects a StoreKit 1 transaction receipt (its OpenStep property list, base64 decoded)
    /// through the same stages as any envelope: it is read, its trust model decides
    /// (`TransactionReceiptSignature`: `signature` fails, `unverifiable`, exit 10, since nothing
    /// here verifies it), then the backend expectations, each on what the receipt says, and
    /// the verdict by the rule every envelope shares. No certificate is checked, so there is no
    /// check time; under `--no-verify` it is `unverified` as any envelope is. Never valid, and
    /// never granting access (`Entitlement.decide`).
    ///
    /// - Parameters:
    ///   - propertyList: the outer property list's bytes.
    ///   - source: where it came from, carried into the result.
    /// - Returns: the inspection; never throws: an unreadable receipt is a `malformed` result.
    package func inspectTransactionReceipt(_ propertyList: [UInt8], source: String) -> Inspection {
        let receipt: TransactionReceiptEnvelope
        do {
            receipt = try TransactionReceiptEnvelope(propertyList: propertyList)
        } catch {
            return .malformed(source: source, reason: error.description)
        }
        var report = Report(chain: [], note: nil)
        if policies.verifiesSignatures {
            report.add(.validation(TransactionReceiptSignature.validate(receipt, hints: options.hints)))
        }
        for expectation in policies.expectations {
            report.addExpectation(expectation.decide(.transactionReceipt(receipt)))
        }
        let (status, reason) = Inspection.verdict(
            checks: report.checks, nested: [], verifiesSignatures: options.verifySignatures,
            unverified: "NOT VERIFIED (\(options.hints.word(.decodeOnly))): decoded only; a StoreKit 1 transaction "
                + "receipt's signature is never verifiable here",
            // Unreachable: its signature check always fails when signatures are verified.
            verdict: "decoded", checked: "nothing", expectationsChecked: report.comparedExpectation,
            at: Inspection.CheckTime(date: options.now, basis: .now))
        var inspection = Inspection(
            source: source, kind: .transactionReceipt, status: status, reason: reason, checks: report.checks,
            notes: report.notes, envelope: .transactionReceipt(receipt), chain: [], checkTime: nil, validNow: nil,
            isXcode: false, nested: [], now: options.now, accessTime: options.accessTime)
        inspection.setAccessContext(options.accessContext)
        return inspection
    }
}
