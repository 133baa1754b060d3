# ctest starts the costliest tests first when it runs tests in parallel (-j). It learns
# their costs from a run (build/Testing/Temporary/CTestCostData.txt), so a fresh build
# has none: it would start them in the order they were declared, and a test of two
# minutes started last keeps the run going long after the others are done. These are
# seconds of wall time measured on 2 cores (ctest -j4 in a fresh clone, 2026-12-05),
# enough to order them; ctest replaces them with what it measures from the first run on.
# A name that no longer exists is ignored. (html_report_browser_test, 57 s, and
# python_module_test, 23 s, are given theirs where they are declared.)
set(structtest_test_costs
    OutputDigestTest.ScoreExportAndReportWriteWhatTheyWroteBefore 120
    ContractTest.OraclePassesAllCheatersPassNearlyNothingUnderStrict 112
    PythonPoolTest.JobsAnsweredInlineGiveWhatAChildGives 59
    PythonPoolTest.StdinRunsSharingAProcessGiveWhatAProcessPerInputGives 32
    HostileTest.EverySubtaskFailsHostileResponsesWithAReason 29
    CodeCheckersTest.HostileProgramsFailWithAReasonAndLeaveNothingBehind 25
    PunktDifferentialTest.AgreesWithNltk 23
    ContractTest.SameSeedSameBytesNewSeedNewSet 11
    CompareCliTest.FlipsAndTestsMatchTheExportedVerdictsAndPython 11
    RunCliTest.FaultsLoseAndDuplicateNothingAndARetriedRunEqualsACleanOne 9
    CodeCheckersTest.HostileResponsesFailWithAReason 9
    CliTest.RunScoreJobsStoreTheSameVerdicts 8)
while(structtest_test_costs)
  list(POP_FRONT structtest_test_costs name cost)
  set_tests_properties(${name} PROPERTIES COST ${cost})
endwhile()
