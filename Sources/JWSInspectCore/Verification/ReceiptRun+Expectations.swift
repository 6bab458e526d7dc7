internal import FoundationEssentials

extension ReceiptRun {
    /// The environment a receipt's `receipt_type` (field 0) means: `Production` is Production,
    /// `ProductionSandbox` Sandbox, `Xcode` Xcode.
    static func environment(receiptType: String?) -> Environment? {
        switch receiptType {
        case "Production": .production
        case "ProductionSandbox": .sandbox
        case "Xcode": .xcode
        default: nil
        }
    }

    /// The backend expectations: `--bundle-id`, `--environment`, `--device-id`, `--require-active`
    /// (the ones a receipt cannot answer are noted, not failed).
    mutating func compare() {
        let payload = receipt.payload
        if let expected = options.expectedBundleId {
            expectationsChecked = true
            checks.append(
                Check(
                    BundleIDPolicy.name, passed: payload.bundleID == expected,
                    Comparison(field: "bundle_id", actual: payload.bundleID, expected: expected, quoted: true)))
        }
        if let expected = options.expectedEnvironment {
            expectationsChecked = true
            // Xcode's StoreKit certificate signs receipts on every Mac: Xcode's, whatever they say.
            let actual = isXcode ? .xcode : Self.environment(receiptType: payload.receiptType)
            let shown = payload.receiptType.map { type in
                actual.map { $0.rawValue == type ? type : "\(type) (\($0.rawValue))" } ?? type
            }
            let detail: String
            if isXcode, payload.receiptType != "Xcode" {
                detail =
                    "signed by StoreKit Testing in Xcode, so its environment is Xcode whatever receipt_type says ("
                    + (payload.receiptType.map { Excerpt.of($0) } ?? "none") + ")"
                    + (expected == .xcode ? "" : "; expected \(expected.rawValue)")
            } else if let shown {
                detail =
                    actual == expected
                    ? "receipt_type is \(shown)" : "receipt_type is \(shown), expected \(expected.rawValue)"
            } else {
                detail = "the receipt has no receipt_type; expected \(expected.rawValue)"
            }
            checks.append(Check(EnvironmentPolicy.name, passed: actual == expected, detail))
        }
        if let device = options.deviceVerificationID {
            expectationsChecked = true
            checks.append(deviceCheck(device))
        }
        if options.expectedAppAppleId != nil {
            notes.append("app Apple ID not compared: a receipt's fields name none (Apple does not compare it either)")
        }
        if options.expectedAccountToken != nil {
            notes.append("account token not compared: a receipt carries no appAccountToken")
        }
        if options.requireActive {
            expectationsChecked = true
            let access = payload.access(at: options.accessTime)
            let when = options.timePolicy == .signingTime ? "now" : "at \(ISO8601.string(options.accessTime))"
            checks.append(
                Check(
                    ActivePolicy.name, passed: access.grantsAccess == true,
                    "\(access.explanation) (access checked \(when))"))
        }
    }

    /// `device-verification`: `sha1_hash` (field 5) is SHA-1 of the device's identifierForVendor,
    /// `opaque_value` (field 4) and the bundle ID's DER (field 2).
    private func deviceCheck(_ device: UUID) -> Check {
        let payload = receipt.payload
        let name = DeviceVerificationPolicy.name
        guard let actual = payload.sha1Hash else {
            return Check(name, passed: false, "the receipt has no sha1_hash (field 5); cannot check device \(device)")
        }
        guard let expected = payload.deviceHash(identifierForVendor: device) else {
            let missing = payload.opaqueValue == nil ? "opaque_value (field 4)" : "bundle_id (field 2)"
            return Check(name, passed: false, "the receipt has no \(missing); cannot check device \(device)")
        }
        if actual == expected {
            return Check(
                name, passed: true, "sha1_hash matches device \(device) (SHA-1 of its ID, opaque_value, bundle_id)")
        }
        return Check(
            name, passed: false,
            "sha1_hash is \(actual.hexString()), expected \(expected.hexString()) for device \(device) "
                + "(SHA-1 of its identifierForVendor, opaque_value, bundle_id): issued to another device")
    }

    /// The inspection: the first failing check decides the status.
    func inspection(source: String) -> Inspection {
        let status: Status
        let reason: Inspection.Reason
        if let failure = checks.first(where: { $0.failed }) {
            status = failure.name.failureStatus
            reason = .failed(failure)
        } else if !options.verifySignatures {
            status = .unverified
            reason = .literal(
                "NOT VERIFIED (--no-verify): decoded only; the PKCS#7 signature and certificate chain were not checked")
        } else {
            var text =
                isXcode
                ? "PKCS#7 signature verified with the StoreKit Testing certificate given as --root"
                : "PKCS#7 signature and certificate chain verified"
            if expectationsChecked { text += ", expectations met" }
            reason = .verified(text, checked: "certificates", at: checkTime)
            status = .valid
        }
        return Inspection(
            source: source, kind: .receipt, status: status, reason: reason, checks: checks, notes: notes,
            envelope: .pkcs7(receipt), chain: chain, checkTime: checkTime, validNow: validNow, isXcode: isXcode,
            now: options.now, accessTime: options.accessTime)
    }
}
