# ctest starts the costliest tests first when it runs tests in parallel (-j). It learns
# their costs from a run (build/Testing/Temporary/CTestCostData.txt), so a fresh build
# has none: it would start them in the order they were declared, and a test of two
# minutes started last keeps the run going long after the others are done. These are
# seconds of wall time measured on 2 cores (ctest -j2, 2026-12-04), enough to order them;
# ctest replaces them with what it measures from the first run on. A name that no longer
# exists is ignored.
set(structtest_test_costs
    OutputDigestTest.ScoreExportAndReportWriteWhatTheyWroteBefore 120
    ContractTest.OraclePassesAllCheatersPassNearlyNothingUnderStrict 90
    PythonPoolTest.JobsAnsweredInlineGiveWhatAChildGives 25
    CodeCheckersTest.HostileProgramsFailWithAReasonAndLeaveNothingBehind 22
    PythonPoolTest.StdinRunsSharingAProcessGiveWhatAProcessPerInputGives 18
    HostileTest.EverySubtaskFailsHostileResponsesWithAReason 15
    PunktDifferentialTest.AgreesWithNltk 12
    RunCliTest.FaultsLoseAndDuplicateNothingAndARetriedRunEqualsACleanOne 12
    CliTest.ScoreJobsGiveTheSameOutputOnEveryCodeSubtask 12
    ContractTest.SameSeedSameBytesNewSeedNewSet 11
    CliTest.RunScoreJobsStoreTheSameVerdicts 11)
while(structtest_test_costs)
  list(POP_FRONT structtest_test_costs name cost)
  set_tests_properties(${name} PROPERTIES COST ${cost})
endwhile()
