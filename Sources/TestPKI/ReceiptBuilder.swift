internal import COpenSSL
package import FoundationEssentials

/// The content of a legacy App Store receipt: a `SET OF TestReceiptAttribute`, built with OpenSSL's ASN.1 API.
///
/// Every field has a fixed default inside the test chains' validity, so a test changes only
/// what it is about. Fields Apple writes and this type does not model go in `extraAttributes`.
package struct ReceiptBuilder: Sendable {
    /// Attribute types of the receipt itself.
    package enum Field {
        /// receipt_type (UTF8String).
        package static let receiptType = 0
        /// bundle_id (UTF8String).
        package static let bundleID = 2
        /// application_version (UTF8String).
        package static let appVersion = 3
        /// opaque_value (raw bytes).
        package static let opaqueValue = 4
        /// sha1_hash (raw 20 bytes).
        package static let sha1Hash = 5
        /// receipt_creation_date (IA5String).
        package static let creationDate = 12
        /// in_app (a SET of attributes, one attribute per entry).
        package static let inApp = 17
        /// original_application_version (UTF8String).
        package static let originalAppVersion = 19
        /// expiration_date (IA5String).
        package static let expirationDate = 21
    }

    /// Field 0 for a receipt from the App Store.
    package static let production = "Production"
    /// Field 0 for a sandbox receipt.
    package static let sandbox = "ProductionSandbox"
    /// Field 0 for a StoreKit Testing in Xcode receipt.
    package static let xcode = "Xcode"
    /// The default creation date: 2025-01-01T00:00:00Z, inside the default leaf validity.
    package static let defaultCreationDate = Date(timeIntervalSince1970: 1_735_689_600)
    /// The default identifierForVendor: 3D9B5F2A-7C41-4E8B-9A0D-6F1E2C3B4A59.
    package static let defaultDeviceID = UUID(
        uuid: (0x3d, 0x9b, 0x5f, 0x2a, 0x7c, 0x41, 0x4e, 0x8b, 0x9a, 0x0d, 0x6f, 0x1e, 0x2c, 0x3b, 0x4a, 0x59))

    /// Field 0: `production`, `sandbox`, `xcode` or any other text.
    package var receiptType: String = ReceiptBuilder.sandbox
    /// Field 2.
    package var bundleID: String = TestPayloads.bundleId
    /// Field 3.
    package var appVersion: String = "1.0"
    /// Field 19.
    package var originalAppVersion: String = "1.0"
    /// Field 4: 16 bytes in App Store receipts, 8 in Xcode ones.
    package var opaqueValue: [UInt8] = Array(0x10...0x1f)
    /// The identifierForVendor field 5's hash is computed from.
    package var deviceID: UUID = ReceiptBuilder.defaultDeviceID
    /// When true, field 5 is the right hash with its first byte changed (a device hash mismatch).
    package var wrongDeviceHash: Bool = false
    /// Field 12, written as RFC 3339 in whole seconds (`2025-01-01T00:00:00Z`).
    package var creationDate: Date = ReceiptBuilder.defaultCreationDate
    /// Field 12 as written, when set (e.g. `2025-01-01T01:00:00+0100`, as some Xcode receipts have); overrides `creationDate`.
    package var creationDateText: String?
    /// True leaves field 12 out: a receipt with no creation date.
    package var omitsCreationDate = false
    /// Field 21; nil leaves the field out.
    package var expirationDate: Date?
    /// One field 17 per entry.
    package var inApp: [InAppEntry] = []
    /// More attributes after the ones above (undocumented or unknown types, duplicates, malformed values).
    package var extraAttributes: [TestReceiptAttribute] = []

    /// Creates a receipt with the defaults; set the properties to change it.
    package init(
        receiptType: String = ReceiptBuilder.sandbox,
        bundleID: String = TestPayloads.bundleId,
        creationDate: Date = ReceiptBuilder.defaultCreationDate,
        inApp: [InAppEntry] = []
    ) {
        self.receiptType = receiptType
        self.bundleID = bundleID
        self.creationDate = creationDate
        self.inApp = inApp
    }

    /// `date` in RFC 3339 with whole seconds in UTC, as receipts write dates: `2020-11-29T19:21:44Z`.
    package static func rfc3339(_ date: Date) -> String {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)).formatted(.iso8601)
    }

    /// The identifierForVendor's 16 bytes, in UUID string order.
    package static func uuidBytes(_ uuid: UUID) -> [UInt8] {
        withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    /// Field 5: SHA-1 of the identifierForVendor's 16 bytes ‖ `opaqueValue` ‖ field 2's DER value
    /// (the UTF8String with its tag and length); with the first byte changed when `wrongDeviceHash`.
    package var sha1Hash: [UInt8] {
        let input = Self.uuidBytes(deviceID) + opaqueValue + TestReceiptValue.utf8String(bundleID).octets
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        OpenSSL.check(EVP_Digest(input, input.count, &digest, &length, EVP_sha1(), nil), "EVP_Digest(SHA-1)")
        var hash = Array(digest.prefix(Int(length)))
        if wrongDeviceHash {
            hash[0] ^= 0xff
        }
        return hash
    }

    /// The receipt's attributes: fields 0, 2, 3, 4, 5, 12 (unless omitted), 19, 21 (when set), one 17 per in-app entry,
    /// then `extraAttributes`.
    package var attributes: [TestReceiptAttribute] {
        var fields = [
            TestReceiptAttribute(type: Field.receiptType, value: .utf8String(receiptType)),
            TestReceiptAttribute(type: Field.bundleID, value: .utf8String(bundleID)),
            TestReceiptAttribute(type: Field.appVersion, value: .utf8String(appVersion)),
            TestReceiptAttribute(type: Field.opaqueValue, value: .raw(opaqueValue)),
            TestReceiptAttribute(type: Field.sha1Hash, value: .raw(sha1Hash)),
            TestReceiptAttribute(type: Field.originalAppVersion, value: .utf8String(originalAppVersion)),
        ]
        if !omitsCreationDate {
            fields.insert(
                TestReceiptAttribute(
                    type: Field.creationDate, value: .ia5String(creationDateText ?? Self.rfc3339(creationDate))),
                at: fields.count - 1)
        }
        if let expirationDate {
            fields.append(
                TestReceiptAttribute(type: Field.expirationDate, value: .ia5String(Self.rfc3339(expirationDate))))
        }
        return fields + inApp.map(\.attribute) + extraAttributes
    }

    /// The receipt content in DER: `SET OF TestReceiptAttribute` (`i2d_ASN1_SET_ANY`).
    package func der() -> [UInt8] {
        TestReceiptAttribute.setDER(attributes)
    }
}
