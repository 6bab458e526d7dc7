/// A StoreKit 1 transaction receipt (what `SKPaymentTransaction.transactionReceipt` gave, and
/// Apple's `ReceiptUtility.extractTransactionIdFromTransactionReceipt` reads) as an envelope:
/// an OpenStep property list (`TransactionReceiptText` recognises its base64) whose
/// `purchase-info` is base64 of another one, the purchase's members.
///
/// Nothing in it is verifiable here: its `signature` is in a format Apple never documented,
/// made with certificates long expired. The TRANSACTION RECEIPT section is the outer list's
/// members other than `purchase-info` (the signature by its size alone); the PAYLOAD is
/// `purchase-info`'s members, strings in the order written.
package struct TransactionReceiptEnvelope: Sendable {
    /// The most bytes the property list may hold (base64-decoded; `purchase-info`'s, inside it,
    /// is smaller still): 64 KiB. Apple's are about 4 KiB.
    package static let maximumSize = 64 << 10

    /// The outer list's members, in order (`purchase-info` among them, as written).
    package let members: [OpenStepPropertyList.Member]
    /// `purchase-info`'s members, in order.
    package let purchaseInfo: [OpenStepPropertyList.Member]
    /// The outer list's members shown (the TRANSACTION RECEIPT section).
    let header: CompactJWS.DecodedSegment
    /// `purchase-info`'s members (the PAYLOAD section).
    let payload: CompactJWS.DecodedSegment

    /// The section's members in the order tables show them first (the rest follow, sorted).
    package static let headerOrder = ["signature", "environment", "pod", "signing-status"]

    /// What a message tells the reader to give instead.
    static let fix = "give SKPaymentTransaction.transactionReceipt's base64 as the app read it, unchanged"

    /// Why a property list is not a transaction receipt (always exit 5, malformed).
    package enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The outer list is over `maximumSize` (its size in bytes).
        case tooLarge(Int)
        /// The outer list does not read.
        case propertyList(OpenStepPropertyList.ParseError)
        /// The outer list is not a dictionary (what it is).
        case notDictionary(String)
        /// The outer list has no `purchase-info` (its members' names).
        case noPurchaseInfo([String])
        /// `purchase-info` is not a string (what it is).
        case purchaseInfoNotString(String)
        /// `purchase-info` is not standard base64.
        case purchaseInfoNotBase64
        /// `purchase-info` holds a property list in another format ("binary", "XML").
        case purchaseInfoFormat(String)
        /// `purchase-info`'s list does not read.
        case purchaseInfo(OpenStepPropertyList.ParseError)
        /// `purchase-info`'s list is not a dictionary (what it is).
        case purchaseInfoNotDictionary(String)

        package var description: String {
            let what = "a StoreKit 1 transaction receipt's"
            switch self {
            case .tooLarge(let size):
                return "\(what) property list is \(size) bytes, over the \(InputStream.describe(size: maximumSize)) "
                    + "limit (Apple's are about 4 KiB); \(fix)"
            case .propertyList(let error):
                return "\(what) property list \(error); \(fix)"
            case .notDictionary(let kind):
                return "\(what) property list is \(kind), expected a dictionary; \(fix)"
            case .noPurchaseInfo(let names):
                let shown = ExactInput.Refusal.Names(names)
                return "not a StoreKit 1 transaction receipt: its property list has no purchase-info member ("
                    + (names.isEmpty ? "no members" : "its members: \(shown)") + "); \(fix)"
            case .purchaseInfoNotString(let kind):
                return "\(what) purchase-info is \(kind), expected base64 text; \(fix)"
            case .purchaseInfoNotBase64:
                return "\(what) purchase-info is not standard base64 text; \(fix)"
            case .purchaseInfoFormat(let format):
                return "\(what) purchase-info holds \(format) property list, not OpenStep text; \(fix)"
            case .purchaseInfo(let error):
                return "\(what) purchase-info's property list \(error); \(fix)"
            case .purchaseInfoNotDictionary(let kind):
                return "\(what) purchase-info's property list is \(kind), expected a dictionary; \(fix)"
            }
        }
    }

    /// Reads a transaction receipt's property list (its base64 decoded): the outer dictionary,
    /// then `purchase-info`'s. Each is bounded (`maximumSize`) before it is read.
    ///
    /// - Throws: `DecodingError` for anything that is not a transaction receipt's shape.
    package init(propertyList bytes: [UInt8]) throws(DecodingError) {
        guard bytes.count <= Self.maximumSize else { throw .tooLarge(bytes.count) }
        let outer: OpenStepPropertyList.Value
        do {
            outer = try OpenStepPropertyList.parse(bytes)
        } catch {
            throw .propertyList(error)
        }
        guard case .dictionary(let members) = outer else { throw .notDictionary(outer.kindDescription) }
        guard let info = members.first(where: { $0.key == "purchase-info" }) else {
            throw .noPurchaseInfo(members.map(\.key))
        }
        guard case .string(let text) = info.value else { throw .purchaseInfoNotString(info.value.kindDescription) }
        // Bounded already: its base64 is part of the list, which is at most `maximumSize` bytes.
        guard let decoded = try? ReceiptBase64.decode(text.utf8, limit: Self.maximumSize) else {
            throw .purchaseInfoNotBase64
        }
        if let format = TransactionReceiptText.otherFormat(decoded) { throw .purchaseInfoFormat(format.article) }
        let inner: OpenStepPropertyList.Value
        do {
            inner = try OpenStepPropertyList.parse(decoded)
        } catch {
            throw .purchaseInfo(error)
        }
        guard case .dictionary(let purchase) = inner else { throw .purchaseInfoNotDictionary(inner.kindDescription) }
        self.members = members
        self.purchaseInfo = purchase
        let shown = members.filter { $0.key != "purchase-info" }.map { member in
            member.key == "signature" ? Member(key: member.key, value: .string(Self.signature(member.value))) : member
        }
        header = Self.segment(shown, kind: nil)
        payload = Self.segment(purchase, kind: .transactionReceipt)
    }

    private typealias Member = OpenStepPropertyList.Member

    /// `purchase-info`'s `transaction-id`, as written.
    package var transactionID: String? { purchaseString("transaction-id") }

    /// The string `purchase-info` holds under `key`, as written; nil when there is none.
    package func purchaseString(_ key: String) -> String? {
        purchaseInfo.first { $0.key == key }?.value.stringValue
    }

    /// The transaction ID to ask Apple about: `transaction-id` when it is one Apple issues
    /// (1 to 20 decimal digits), so that a command naming it runs as shown; else nil.
    package var fetchableTransactionID: String? { transactionID.flatMap(Self.fetchable) }

    /// `id`, when it is a transaction ID Apple issues (1 to 20 decimal digits); else nil.
    static func fetchable(_ id: String) -> String? {
        guard (1...20).contains(id.utf8.count),
            id.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return id
    }

    /// The signature as the section shows it: its size, never its bytes, and that it is not verified.
    private static func signature(_ value: OpenStepPropertyList.Value) -> String {
        guard case .string(let text) = value else { return "\(value.kindDescription), not verified" }
        guard let bytes = try? ReceiptBase64.decode(text.utf8, limit: maximumSize) else {
            return "\(text.utf8.count) characters, not base64; not verified"
        }
        return "\(bytes.count) bytes, not verified"
    }

    /// Members as a section: compact JSON in their order, every member (strings as strings).
    private static func segment(_ members: [Member], kind: PayloadKind?) -> CompactJWS.DecodedSegment {
        let object = OrderedJSON.object(.init(distinct: members.map { ($0.key, ordered($0.value)) }))
        return CompactJWS.DecodedSegment(
            bytes: object.bytes, essentials: Dictionary(uniqueKeysWithValues: members.map { ($0.key, json($0.value)) }),
            isComplete: true, recognisedKind: kind, isCompact: true)
    }

    private static func ordered(_ value: OpenStepPropertyList.Value) -> OrderedJSON {
        switch value {
        case .string(let text): .string(text)
        case .array(let values): .array(values.map(ordered))
        case .dictionary(let members): .object(.init(distinct: members.map { ($0.key, ordered($0.value)) }))
        }
    }

    private static func json(_ value: OpenStepPropertyList.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .array(let values): .array(values.map(json))
        case .dictionary(let members):
            .object(Dictionary(uniqueKeysWithValues: members.map { ($0.key, json($0.value)) }))
        }
    }
}
