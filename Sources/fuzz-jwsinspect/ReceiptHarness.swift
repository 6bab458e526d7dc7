// The receipt side of the fuzz target: legacy App Store receipts (PKCS#7) through
// `Verifier.inspectReceipt` (`ReceiptEnvelope`, `CMSSignedData`, `ReceiptPayload`), every
// property of the result read so that lazily computed text runs too, and a whole input that
// is a raw receipt through the command, as `jwsinspect receipt.der` reads it.
import Foundation
import JWSInspectCLI
import JWSInspectCore
import StrictJSONParser

extension Harness {
    /// The identifierForVendor minted receipts are issued to (TestPKI's `ReceiptBuilder`
    /// default), so that their device hash can match.
    static let receiptDevice = UUID(uuidString: "3D9B5F2A-7C41-4E8B-9A0D-6F1E2C3B4A59")!

    /// Whether `bytes` start like a raw SignedData (DER or BER), as a whole input that is a
    /// receipt does: `InputStream` reads such an input whole, as one receipt.
    static func startsRawReceipt(_ bytes: [UInt8]) -> Bool {
        bytes.first == 0x30 && LegacyReceipt.looksLike(bytes)
    }

    /// A receipt's bytes inspected three ways: by `verifier` (Apple Inc. Root, the harness's
    /// expectations); trusting the receipt's own self-issued certificates, as `--root` would
    /// (so that minted and Xcode receipts reach a valid chain, the expectations after it and the
    /// validity now), with every receipt expectation; and under `--no-verify` at a fixed time.
    static func inspectReceipt(_ der: [UInt8], source: String, verifier: Verifier) {
        let inspection = verifier.inspectReceipt(der, source: source)
        readReceipt(inspection, verified: true)
        guard let receipt = inspection.envelope?.receipt else { return }
        var ownRoots = VerificationOptions(
            trustStore: TrustStore(roots: receipt.container.certificates.filter(\.isSelfIssued)))
        ownRoots.now = now
        ownRoots.expectedBundleId = "com.example.jwsinspect"
        ownRoots.expectedEnvironment = .production
        ownRoots.deviceVerificationID = receiptDevice
        ownRoots.expectedAppAppleId = 1
        ownRoots.expectedAccountToken = receiptDevice
        ownRoots.requireActive = true
        readReceipt(Verifier(options: ownRoots).inspectReceipt(der, source: source), verified: true)
        var unverified = VerificationOptions()
        unverified.now = now
        unverified.verifySignatures = false
        unverified.timePolicy = .fixed(Date(timeIntervalSince1970: 1_600_000_000))
        unverified.requireActive = true
        readReceipt(Verifier(options: unverified).inspectReceipt(der, source: source), verified: false)
    }

    /// Reads every property of a receipt's inspection, as the renderers do, and checks what
    /// must hold whatever the bytes: a result is malformed exactly when nothing was decoded;
    /// the container and the payload are JSON (judged by the independent strict parser), the
    /// payload's `in_app` one object per in-app entry; the signature check says what the
    /// container says; access is decided the same way wherever it is asked.
    static func readReceipt(_ inspection: Inspection, verified: Bool) {
        precondition(!inspection.reason.isEmpty, "a receipt result without a reason")
        guard let envelope = inspection.envelope, let receipt = envelope.receipt else {
            precondition(inspection.status == .malformed, "no receipt decoded, yet \(inspection.status)")
            return
        }
        precondition(inspection.kind == .receipt && envelope.name == "pkcs7", "a receipt that is not one")
        precondition(inspection.status != .malformed, "a decoded receipt reported malformed")
        for check in inspection.checks { precondition(!check.detail.isEmpty, "a check without detail") }
        if verified {
            // A signature that verifies may still be refused for its digest (an unknown one, MD5):
            // the check passes only when the container's signature verifies, and fails for a
            // verifying one only naming its digest.
            let signature = inspection.checks.first { $0.name == .signature }
            precondition(signature != nil, "a verified receipt without a signature check")
            if signature?.passed == true {
                precondition(receipt.container.signatureVerifies, "the signature check passed a failing signature")
            } else if receipt.container.signatureVerifies {
                precondition(
                    signature?.detail.contains("digest") == true,
                    "the signature check refused a verifying signature without naming its digest")
            }
        } else {
            precondition(inspection.status != .valid && !inspection.isAuthentic, "--no-verify yet verified")
        }
        _ = inspection.notes.map(\.count)
        _ = inspection.checkTime?.phrase
        for summary in inspection.chain {
            _ = (summary.subject, summary.issuer, summary.serialHex, summary.sha256, summary.key)
            _ = (summary.appleOIDs, summary.knownAs, summary.error, summary.role)
            _ = inspection.validNow?.mark(summary)
            _ = summary.isWithinValidity(at: inspection.now)
        }
        _ = (inspection.validNow?.detail, inspection.isAuthentic, inspection.isAppleSigned)
        precondition(inspection.developerKeyID == nil, "a receipt verified with a developer key")

        let sections = envelope.sections
        do {
            guard let header = try StrictJSON.parse(sections.header.bytes) as? [String: Any],
                Set(header.keys) == Set(ReceiptEnvelope.headerOrder)
            else { preconditionFailure("the CONTAINER section is not the container's members") }
            guard let payload = try StrictJSON.parse(sections.payload.bytes) as? [String: Any],
                let inApp = payload["in_app"] as? [[String: Any]], inApp.count == receipt.payload.inApp.count
            else { preconditionFailure("the payload's in_app is not one object per in-app entry") }
        } catch {
            preconditionFailure("a receipt section is not JSON: \(error)")
        }
        _ = sections.header.object.count
        _ = sections.payload.object.count

        guard let presentation = inspection.fullPresentation else {
            preconditionFailure("a decoded receipt without presentation")
        }
        for field in presentation.display.fields {
            _ = (field.dottedPath, field.raw, field.rendered, field.relative, field.flag)
        }
        _ = (presentation.display.unknownFields, presentation.display.unknownValues)
        precondition(!presentation.summary.isEmpty, "an empty summary")
        _ = presentation.access.access.briefPhrase
        checkAccessFailsClosed(inspection)
        readPayload(receipt.payload, at: inspection.accessTime)
    }

    /// Every field of the payload and of each in-app entry, as values, JSON and text.
    static func readPayload(_ payload: ReceiptPayload, at time: Date) {
        _ = (payload.receiptType, payload.bundleID, payload.applicationVersion, payload.originalApplicationVersion)
        _ = (payload.opaqueValue, payload.sha1Hash, payload.creationDate, payload.expirationDate)
        _ = payload.matchesDevice(identifierForVendor: receiptDevice)
        _ = (payload.activeEntries(at: time).count, payload.latestSubscription, payload.summary(at: time))
        precondition(payload.isActive(at: time) == (payload.access(at: time).grantsAccess == true), "access twice")
        // An entry whose expires_date or cancellation_date does not read never grants access.
        for entry in payload.inApp where entry.unreadableDate != nil {
            precondition(!entry.isActive(at: time), "an entry with an unreadable date grants access")
        }
        if case .unreadable = payload.expiration { precondition(!payload.isActive(at: time), "expired receipt grants") }
        if case .object(let members) = payload.json {
            precondition(members.count == payload.orderedMembers.count, "a payload member was lost")
        }
        for attribute in payload.attributes + payload.inApp.flatMap(\.attributes) {
            let value = attribute.value
            _ = (value.shown, value.string, value.integer)
            if !attribute.bytes.isEmpty {
                precondition(
                    ReceiptValue(hex: attribute.bytes.hexString()) == value, "a value read back from hex differs")
            }
        }
        for entry in payload.inApp {
            _ = (entry.quantity, entry.productID, entry.transactionID, entry.originalTransactionID)
            _ = (entry.purchaseDateText, entry.purchaseDate, entry.expiresDate, entry.cancellationDate)
            _ = (entry.webOrderLineItemID, entry.isSubscription, entry.isCancelled, entry.isActive(at: time))
            _ = entry.json
        }
    }

    // MARK: The whole command

    /// A whole input that is a raw receipt, through `jwsinspect -` as it is (no sentinel lines:
    /// a raw receipt is one only as a whole input), in JSON Lines read whole and in pieces
    /// (verified on two workers for one input in sixteen), as pretty JSON and as tables.
    /// Invariants: one result per item the input stream finds, with a status, a reason and
    /// the source `<stdin>`; the output is JSON; pieces, workers and formats change neither
    /// the results nor the exit status.
    static func checkReceiptCommand(_ bytes: [UInt8], recordLimit: Int) {
        var stream = InputStream(bytes: bytes, origin: "fuzz", recordLimit: recordLimit)
        var expected = 0
        while let items = stream.next() { expected += items.count }
        let whole = command(
            bytes, pieceSize: bytes.count, recordLimit: recordLimit,
            arguments: ["--format", "jsonl", "--jobs", "1", "-"])
        let jobs = bytes.count % 16 == 0 ? "2" : "1"
        let pieces = command(
            bytes, pieceSize: 1 + Int(bytes.count % 7), recordLimit: recordLimit,
            arguments: ["--format", "jsonl", "--jobs", jobs, "-"])
        precondition(whole == pieces, "reading a receipt in pieces (on \(jobs) workers) changed the output")
        let results: [[String: Any]]
        do {
            results = try StrictJSON.lines(whole.out)
        } catch {
            preconditionFailure("JSON Lines output of a receipt is not JSON: \(error)")
        }
        precondition(results.count == expected, "\(expected) receipts found, \(results.count) results")
        for result in results {
            guard let status = result["status"] as? String, statuses.contains(status),
                let reason = result["reason"] as? String, !reason.isEmpty, result["source"] as? String == "<stdin>"
            else { preconditionFailure("a receipt result without status, reason or source: \(result)") }
        }
        let pretty = command(
            bytes, pieceSize: bytes.count, recordLimit: recordLimit,
            arguments: ["--format", "json", "--jobs", "1", "-"])
        do {
            let documents = try StrictJSON.documents(pretty.out)
            precondition(documents.count == results.count, "pretty JSON lost a receipt")
        } catch {
            preconditionFailure("pretty JSON output of a receipt is not JSON: \(error)")
        }
        let table = command(bytes, pieceSize: bytes.count, recordLimit: recordLimit, arguments: ["--jobs", "1", "-"])
        precondition(
            pretty.status == whole.status && table.status == whole.status,
            "exit status \(whole.status) in JSON Lines, \(pretty.status) in JSON, \(table.status) in tables")
        // Tables show a malformed result on standard error only.
        precondition(results.isEmpty || !(table.out + table.error).isEmpty, "tables of a receipt are empty")
    }
}
