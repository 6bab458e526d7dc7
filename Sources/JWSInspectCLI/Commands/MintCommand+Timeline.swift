internal import AppStoreTestData
internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect mint timeline`: `MintTimeline`'s webhook log, one `{"signedPayload": …}` body a
/// line, every notification and its nested transaction and renewal info signed by a `mint ca`
/// folder's leaf.
extension MintCommand {
    static func mintTimeline(_ options: MintOptions, io: CommandIO) -> Int32 {
        do throws(Failure) {
            let folder = options.ca ?? "."
            let signer = try Signer(folder: folder)
            let steps = MintTimeline.steps(now: io.now)
            // Every notification must be signed while the leaf is valid.
            let leaf = try? Certificate(derBytes: try readCAFile("leaf.der", in: folder, for: "mint timeline"))
            if let notBefore = leaf?.notBefore, let first = steps.first?.signed, notBefore > first {
                throw Failure(
                    message: "mint timeline: the log starts \(ISO8601.string(first)), before the CA's leaf is valid "
                        + "(from \(ISO8601.string(notBefore))): mint the CA with --backdate 66 or more",
                    status: .usage)
            }
            var bodies: [String] = []
            for step in steps {
                bodies.append(try body(step, options, signer: signer))
            }
            let lines = MintTimeline.deliveries(clean: options.cleanTimeline).map { bodies[$0] + "\n" }
            return Output.print(lines.joined(), io: io)
        } catch {
            io.error(error.message)
            return error.status.rawValue
        }
    }

    /// One webhook body: the notification of `step`, its nested payloads made for its type and
    /// placed on the step's dates.
    private static func body(_ step: MintTimeline.Step, _ options: MintOptions, signer: Signer) throws(Failure)
        -> String
    {
        let context = MintContext(
            bundleID: options.bundleID ?? "com.example.app", environment: options.environment ?? "Sandbox",
            now: step.signed, notificationType: step.notificationType, subtype: step.subtype)
        let milliseconds = { (date: Date) in String(Int64((date.timeIntervalSince1970 * 1_000).rounded())) }
        var notification = MintPayloads.payload(.notification, context: context)
        for (path, kind) in MintPayloads.nestedKinds(notificationType: step.notificationType, subtype: step.subtype) {
            var nested = MintPayloads.payload(kind, context: context)
            var assignments = ["originalTransactionId=\"\(MintTimeline.originalTransactionID)\""]
            if kind == .transaction {
                assignments += [
                    "transactionId=\"\(step.transactionID)\"", "purchaseDate=\(milliseconds(step.purchased))",
                    "originalPurchaseDate=\(milliseconds(step.originalPurchased))",
                    "expiresDate=\(milliseconds(step.expires))",
                ]
                if step.notificationType == "REFUND" {
                    assignments.append("revocationDate=\(milliseconds(step.signed))")
                }
            }
            try set(assignments, in: &nested)
            try set(["\(path.joined(separator: "."))=\"\(try signer.sign(nested.jsonBytes))\""], in: &notification)
        }
        try set(["notificationUUID=\"\(step.notificationUUID)\""], in: &notification)
        return "{\"signedPayload\":\"\(try signer.sign(notification.jsonBytes))\"}"
    }

    private static func set(_ assignments: [String], in payload: inout OrderedJSON.Object) throws(Failure) {
        for assignment in assignments {
            do {
                try MintPayloads.set(assignment, in: &payload)
            } catch {
                throw Failure(message: "mint timeline: \(assignment): \(error.description)", status: .software)
            }
        }
    }
}
