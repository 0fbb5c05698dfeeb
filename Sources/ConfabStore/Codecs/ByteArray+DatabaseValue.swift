import Foundation
import GRDB

/// Keys, hashes and raw entries are byte arrays throughout Confab; they are stored as
/// BLOBs.
extension Array: @retroactive SQLExpressible where Element == UInt8 {}
extension Array: @retroactive StatementBinding where Element == UInt8 {}
extension Array: @retroactive DatabaseValueConvertible where Element == UInt8 {
    public var databaseValue: DatabaseValue { Data(self).databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> [UInt8]? {
        Data.fromDatabaseValue(dbValue).map { [UInt8]($0) }
    }
}
